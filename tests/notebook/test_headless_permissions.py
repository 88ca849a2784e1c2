"""Headless runs (nbclient) never hand out mutating tools unless someone chose to.

With nothing configured the run denies them and says, in the cell output, how to allow them: the
cell's ``-p``, ``%config AgentMagics.permissions`` or ``JUPYTER_AGENT_PERMISSIONS``.
"""

import nbformat
import pytest
from kernel_harness import notebook_outputs_text
from nbclient import NotebookClient

pytestmark = pytest.mark.kernel

SETUP = """\
%load_ext jupyter_agent
from jupyter_agent.notebook.model_resolution import register_model
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

def writer(name):
    model = ScriptedModel([tool_calls(call("write", {"path": name, "content": "pwned"})), reply("Done.")])
    register_model(name, model, model.model(name))
"""


def outputs_text(cell):
    return notebook_outputs_text(cell).replace("\\", "")  # Markdown escapes


def run_headless(folder, monkeypatch, cells, env=None):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv("JUPYTER_AGENT_PERMISSIONS", raising=False)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(SETUP), *(nbformat.v4.new_code_cell(cell) for cell in cells)]
    client = NotebookClient(
        notebook, timeout=60, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    return [outputs_text(cell) for cell in notebook.cells[1:]]


def test_nothing_configured_denies_with_a_note_and_ask_never_hangs(tmp_path, monkeypatch):
    outputs = run_headless(
        tmp_path,
        monkeypatch,
        [
            'writer("default.txt")\n',
            "%%agent -m default.txt -s one\nWrite the file",
            'writer("asked.txt")\n',
            "%%agent -m asked.txt -s two -p ask\nWrite the file",
        ],
    )
    for text in (outputs[1], outputs[3]):
        assert "write denied: a headless run cannot show an approval prompt." in text
        assert "-p yolo" in text and "%config AgentMagics.permissions" in text
        assert "JUPYTER_AGENT_PERMISSIONS=yolo (or readonly, ask)" in text
    assert not (tmp_path / "default.txt").exists() and not (tmp_path / "asked.txt").exists()


def test_the_cell_option_config_and_environment_allow_in_that_order(tmp_path, monkeypatch):
    outputs = run_headless(
        tmp_path,
        monkeypatch,
        [
            'writer("from-env.txt"); writer("from-cell.txt"); writer("from-config.txt"); writer("cell-wins.txt")\n',
            "%%agent -m from-env.txt -s env\nWrite the file",
            "%%agent -m from-cell.txt -s cell -p yolo\nWrite the file",
            '%config AgentMagics.permissions = "yolo"',
            "%%agent -m from-config.txt -s config\nWrite the file",
            '%config AgentMagics.permissions = "readonly"',
            "%%agent -m cell-wins.txt -s wins -p yolo\nWrite the file",
        ],
        env={"JUPYTER_AGENT_PERMISSIONS": "readonly"},
    )
    assert "read-only mode" in outputs[1]  # the environment's readonly: denied, no how-to note needed
    assert not (tmp_path / "from-env.txt").exists()
    for name in ("from-cell.txt", "from-config.txt", "cell-wins.txt"):
        assert (tmp_path / name).read_text() == "pwned"


def test_the_environment_allows_a_headless_run(tmp_path, monkeypatch):
    run_headless(
        tmp_path,
        monkeypatch,
        ['writer("env-yolo.txt")\n', "%%agent -m env-yolo.txt\nWrite the file"],
        env={"JUPYTER_AGENT_PERMISSIONS": "yolo"},
    )
    assert (tmp_path / "env-yolo.txt").read_text() == "pwned"


def test_a_bad_environment_value_is_a_clear_error(tmp_path, monkeypatch):
    outputs = run_headless(
        tmp_path,
        monkeypatch,
        ['writer("bad.txt")\n', "%%agent -m bad.txt\nWrite the file"],
        env={"JUPYTER_AGENT_PERMISSIONS": "always"},
    )
    assert (
        "UsageError: JUPYTER_AGENT_PERMISSIONS='always' is not a permission mode: "
        "use JUPYTER_AGENT_PERMISSIONS=yolo, readonly or ask (or unset it)"
    ) in outputs[1]
    assert not (tmp_path / "bad.txt").exists()
