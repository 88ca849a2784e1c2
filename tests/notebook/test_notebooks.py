"""The shipped notebooks run end to end headless (nbclient), with the offline demo model.

Headless execution has no Jupyter server session, so every %%agent cell blocks until its turn
ends and renders with plain displays that nbclient records (and permissions default to yolo).
"""

import pathlib
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.kernel

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def outputs_text(cell):
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(output.data.get("text/markdown") or output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
    return "\n".join(parts)


def run_notebook(name, folder, monkeypatch):
    shutil.copy(NOTEBOOKS / name, folder / name)
    shutil.copy(NOTEBOOKS / "sales.csv", folder / "sales.csv")
    monkeypatch.setenv("JUPYTER_AGENT_MODEL", "demo")
    monkeypatch.setenv("JUPYTER_AGENT_DEMO_DELAY", "0")
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
        text = outputs_text(cell)
        assert "Offline demo model" in text and "Error" not in text
    assert "sales.describe()" in outputs_text(cells[0])
    usage = outputs_text(notebook.cells[-3])
    assert "Usage of session `main`" in usage
    # No Jupyter server tells a headless kernel its notebook: sessions go to the working folder.
    assert (tmp_path / "ipython.agent" / "main.jsonl").exists()


def test_data_exploration_loads_the_csv_into_the_namespace(tmp_path, monkeypatch):
    notebook = run_notebook("data-exploration.ipynb", tmp_path, monkeypatch)
    assert "pd.read_csv('sales.csv')" in outputs_text(agent_cells(notebook)[0])
    grouped = next(cell for cell in notebook.cells if "groupby" in cell.source)
    assert "East" in outputs_text(grouped)  # df, created by the agent, is the user's variable
