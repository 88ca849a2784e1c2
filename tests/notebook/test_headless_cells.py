"""Headless runs (nbclient, papermill, nbconvert: no ``cellId``, a new kernel each run) reproduce:
Run All twice sends each agent cell's prompt once, and a turn that fails fails its cell."""

import json
import os
import subprocess
import sys

import nbformat
import pytest
from kernel_harness import notebook_outputs_text
from nbclient import NotebookClient

from jupyter_agent.testing.fake_provider import FakeProvider, rejected_key

pytestmark = pytest.mark.kernel

SETUP = """\
%load_ext jupyter_agent
import json
from jupyter_agent.notebook.model_resolution import register_model
from jupyter_agent.testing.scripted import ScriptedModel, reply

model = ScriptedModel([reply(f"answer {n}") for n in range(10)])
register_model("cells", model, model.model("cells"))
"""
# The user messages of the run's last request, kept where the test reads them.
REPORT = """\
last = model.requests[-1].context.messages
texts = [m.content if isinstance(m.content, str) else "".join(b.text for b in m.content if b.type == "text") for m in last if m.role == "user"]
json.dump(texts, open("last_request.json", "w"))
"""
PROMPTS = ("What data do I have? Summarise the sales DataFrame.", "Now plot both regions over the year.")


def notebook_of(*cells):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    return notebook


def run_all(folder, notebook):
    client = NotebookClient(notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.execute()  # a new kernel, as papermill starts one for every run
    return notebook


def test_restart_and_run_all_twice_sends_each_prompt_once(tmp_path, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    cells = [SETUP, *(f"%%agent -m cells\n{prompt}" for prompt in PROMPTS), REPORT]
    for _ in range(2):
        run_all(tmp_path, notebook_of(*cells))
    texts = json.loads((tmp_path / "last_request.json").read_text())
    for prompt in PROMPTS:
        assert sum(text.count(prompt) for text in texts) == 1
    from jupyter_agent.session import SessionStore

    store = SessionStore(tmp_path / "ipython.agent" / "main.jsonl", read_only=True)
    assert [turn.prompt for turn in store.turns()] == list(PROMPTS)  # one turn per agent cell
    assert [turn.prompt for turn in store.branches()[1].own_turns] == list(PROMPTS)  # the first run's, kept


def test_an_edited_first_cell_forks_a_headless_run(tmp_path, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    run_all(tmp_path, notebook_of(SETUP, f"%%agent -m cells\n{PROMPTS[0]}", f"%%agent -m cells\n{PROMPTS[1]}", REPORT))
    edited = run_all(tmp_path, notebook_of(SETUP, "%%agent -m cells\nWhat columns are there?", REPORT))
    assert json.loads((tmp_path / "last_request.json").read_text())[-1].endswith("What columns are there?")
    assert len(json.loads((tmp_path / "last_request.json").read_text())) == 1
    said = notebook_outputs_text(edited.cells[1]).replace("\\", "")
    assert "This turn starts session main over: it replaces 2 turns (kept on a branch: %agent sessions lists it)." in said


def test_nbconvert_fails_when_an_agent_cell_meets_a_401(tmp_path):
    notebook = notebook_of("%load_ext jupyter_agent", "%%agent\nSummarise the data.", "print('after the agent cell')")
    path = tmp_path / "failing.ipynb"
    nbformat.write(notebook, path)
    env = {key: value for key, value in os.environ.items() if key != "JPY_SESSION_NAME"}
    with FakeProvider([rejected_key()]) as provider:
        env.update(
            JUPYTER_AGENT_MODEL="openai/fake-model", JUPYTER_AGENT_API_BASE=provider.api_base, JUPYTER_AGENT_API_KEY="sk-wrong"
        )
        done = subprocess.run(
            [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--output", "out.ipynb", str(path)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert done.returncode != 0
    assert "AgentTurnFailed" in done.stderr and "sk-wrong" not in done.stderr
    assert "after the agent cell" not in done.stderr + done.stdout  # the run stopped at the failed cell
