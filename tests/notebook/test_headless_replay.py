"""Replay is as safe as a live turn (headless runs): a recorded python call edited in the session
file is new code, refused where a live call would be (no permission configured, ``-p readonly``,
a site ceiling of ``readonly``), while an unedited call this user recorded replays."""

import json
import shutil

import nbformat
import pytest
from kernel_harness import notebook_outputs_text
from nbclient import NotebookClient

pytestmark = pytest.mark.kernel

SETUP = """\
%load_ext jupyter_agent
from jupyter_agent.notebook.model_resolution import register_model
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

code = "open('ran.txt', 'w').write('recorded code ran')"
model = ScriptedModel([tool_calls(call("python", {"code": code})), reply("Wrote it.")])
register_model("recorder", model, model.model("recorder"))
"""
PROMPT = "Write the file"


def run(folder, monkeypatch, *cells, env=None):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv("JUPYTER_AGENT_PERMISSIONS", raising=False)
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder.parent / "jupyter-data"))  # this user's replay key
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(SETUP), *(nbformat.v4.new_code_cell(cell) for cell in cells)]
    NotebookClient(notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return [notebook_outputs_text(cell).replace("\\", "") for cell in notebook.cells[1:]]


def edit_recorded_code(session_file):
    lines = session_file.read_text().splitlines()
    edited = [line.replace("recorded code ran", "edited code ran") for line in lines]
    assert edited != lines
    session_file.write_text("\n".join(edited) + "\n")


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    folder = tmp_path / "work"
    folder.mkdir()
    run(folder, monkeypatch, f"%%agent -m recorder -p yolo -s rec\n{PROMPT}")
    assert (folder / "ran.txt").read_text() == "recorded code ran"
    (folder / "ran.txt").unlink()
    return folder


def test_an_unedited_call_this_user_recorded_replays(recorded, monkeypatch):
    outputs = run(recorded, monkeypatch, f"%%agent --replay -s rec\n{PROMPT}")
    assert (recorded / "ran.txt").read_text() == "recorded code ran"
    assert "Replayed the recorded turn 1: 1 python call(s) run again" in outputs[0]


@pytest.mark.parametrize(
    "options, env",
    [
        ("", {}),  # headless, no permission configured: nobody can approve new code
        ("-p readonly", {}),
        ("-p yolo", {"JUPYTER_AGENT_SITE_CONFIG": "site.json"}),  # the site's ceiling is readonly
    ],
    ids=["headless-ask", "readonly", "site-ceiling"],
)
def test_an_edited_call_does_not_run(recorded, monkeypatch, options, env):
    (recorded / "site.json").write_text(json.dumps({"permissions": {"ceiling": "readonly"}}))
    env = {key: str(recorded / value) for key, value in env.items()}
    edit_recorded_code(recorded / "ipython.agent" / "rec.jsonl")
    outputs = run(recorded, monkeypatch, f"%%agent --replay {options} -s rec\n{PROMPT}", env=env)
    assert not (recorded / "ran.txt").exists()
    assert "python" in outputs[0] and "denied" in outputs[0]
    if not options:
        assert "this python call was recorded by someone else or edited since" in outputs[0]


def test_a_call_recorded_by_someone_else_needs_approval(recorded, monkeypatch, tmp_path):
    shutil.move(str(tmp_path / "jupyter-data"), str(tmp_path / "their-data"))  # another user's key, not ours
    outputs = run(recorded, monkeypatch, f"%%agent --replay -s rec\n{PROMPT}")
    assert not (recorded / "ran.txt").exists()
    assert "this python call was recorded by someone else or edited since" in outputs[0]
