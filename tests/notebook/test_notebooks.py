"""The shipped notebooks run end to end headless (nbclient), with the offline demo model.

Headless execution has no Jupyter server session, so every %%agent cell blocks until its turn
ends and renders with plain displays that nbclient records. A headless run denies mutating tools
unless someone allows them, so these runs set JUPYTER_AGENT_PERMISSIONS=yolo, as a user would.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from kernel_harness import notebook_outputs_text
from nbclient import NotebookClient

pytestmark = pytest.mark.kernel

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def run_notebook(name, folder, monkeypatch, copy=True):
    if copy:
        shutil.copy(NOTEBOOKS / name, folder / name)
    shutil.copy(NOTEBOOKS / "sales.csv", folder / "sales.csv")
    monkeypatch.setenv("JUPYTER_AGENT_MODEL", "demo")
    monkeypatch.setenv("JUPYTER_AGENT_DEMO_DELAY", "0")
    monkeypatch.setenv("JUPYTER_AGENT_PERMISSIONS", "yolo")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    notebook = nbformat.read(folder / name, as_version=4)
    NotebookClient(notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return notebook


def agent_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.startswith("%%agent")]


def test_quickstart_runs_end_to_end_with_the_offline_demo(tmp_path, monkeypatch):
    notebook = run_notebook("quickstart.ipynb", tmp_path, monkeypatch)
    cells = agent_cells(notebook)
    assert len(cells) == 2
    for cell in cells:
        text = notebook_outputs_text(cell)
        assert "Offline demo model" in text and "Error" not in text
    assert "sales.describe()" in notebook_outputs_text(cells[0])
    usage = notebook_outputs_text(next(cell for cell in notebook.cells if "%agent usage" in cell.source))
    assert "Usage of session `main`" in usage
    # No Jupyter server tells a headless kernel its notebook: sessions go to the working folder,
    # and the first turn's output says so (once).
    assert (tmp_path / "ipython.agent" / "main.jsonl").exists()
    note = f"Session saved to {tmp_path / 'ipython.agent' / 'main.jsonl'}: this kernel was not told its notebook's path"
    assert note in notebook_outputs_text(cells[0]).replace("\\", "") and "Session saved to" not in notebook_outputs_text(cells[1])


def test_data_exploration_loads_the_csv_into_the_namespace(tmp_path, monkeypatch):
    notebook = run_notebook("data-exploration.ipynb", tmp_path, monkeypatch)
    first, second = agent_cells(notebook)
    assert "pd.read_csv('sales.csv')" in notebook_outputs_text(first)
    # The demo answers the notebook's question, and its plot reaches it as a figure.
    assert "**East** dropped the most from 2024Q3 to 2024Q4: -36.6 %." in notebook_outputs_text(first)
    assert "drew a figure" in notebook_outputs_text(first) and "omitted" not in notebook_outputs_text(first)
    assert any("image/png" in output.get("data", {}) for output in first.outputs)
    assert "**East / Gadget** dropped the most from 2024Q3 to 2024Q4: -40.8 %." in notebook_outputs_text(second)
    grouped = next(cell for cell in notebook.cells if "groupby" in cell.source)
    assert "East" in notebook_outputs_text(grouped)  # df, created by the agent, is the user's variable


def test_two_headless_notebooks_in_one_folder_keep_their_own_sessions(tmp_path, monkeypatch):
    """papermill --inject-input-path names the notebook; `%agent session-file` names the file."""

    def inject(name, source, at):
        notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
        notebook.cells.insert(at, nbformat.v4.new_code_cell(source))
        nbformat.write(notebook, tmp_path / name)

    inject("quickstart.ipynb", "PAPERMILL_INPUT_PATH = 'quickstart.ipynb'", 0)  # what papermill injects
    inject("data-exploration.ipynb", "%agent session-file exploration.agent/main.jsonl", 2)
    for name in ("quickstart.ipynb", "data-exploration.ipynb"):
        notebook = run_notebook(name, tmp_path, monkeypatch, copy=False)
        assert all("Session saved to" not in notebook_outputs_text(cell) for cell in agent_cells(notebook))
    assert (tmp_path / "quickstart.agent" / "main.jsonl").exists()
    assert (tmp_path / "exploration.agent" / "main.jsonl").exists()
    assert not (tmp_path / "ipython.agent").exists()


# A setting in a shipped notebook that lets the agent act without asking (a -p/--permissions option or
# AgentMagics.permissions), outside a comment.
ALLOWS = re.compile(r"^(?!\s*#).*(AgentMagics\.permissions\s*=|^%%agent\b.*\s(-p|--permissions)\b)", re.MULTILINE)


@pytest.mark.parametrize("name", sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")))
def test_every_shipped_notebook_runs_clean_under_nbconvert_execute(name, tmp_path):
    """As CI or a scheduler runs it: `jupyter nbconvert --execute`, nothing allowed from outside.

    What a notebook allows, it says why in a comment beside the setting.
    """
    for source in (NOTEBOOKS / name, NOTEBOOKS / "sales.csv"):
        shutil.copy(source, tmp_path / source.name)
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY") and not key.startswith("JPY_")}
    env.pop("JUPYTER_AGENT_PERMISSIONS", None)
    env.update(JUPYTER_AGENT_MODEL="demo", JUPYTER_AGENT_DEMO_DELAY="0")
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", name, "--output", "executed"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=170)
    assert done.returncode == 0, done.stderr[-3000:]
    notebook = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        text = notebook_outputs_text(cell)
        assert not [output for output in cell.outputs if output.output_type == "error"], text
        assert "**Error**" not in text and "Traceback" not in text, text
        if ALLOWS.search(cell.source):
            assert cell.source.lstrip().startswith("#"), f"say why the notebook allows it: {cell.source}"
    for cell in agent_cells(notebook):
        # A denied call is named for what it was: nobody could approve it headless.
        text = notebook_outputs_text(cell)
        assert "You declined" not in text
        if "a headless run cannot show an approval prompt" in text:
            assert "denied (headless run: nobody could approve it)" in text
