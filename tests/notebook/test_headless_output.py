"""What nbconvert and papermill save of an agent cell holds the turn, not its progress lines.

A real litellm model (through the fake OpenAI-compatible provider on 127.0.0.1) in a fresh kernel,
so the first turn waits for litellm's import, as a scheduled notebook's does.
"""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest
from kernel_harness import notebook_outputs_text

from jupyter_agent.testing.fake_provider import FakeProvider, text

pytestmark = pytest.mark.kernel

# Lines that say what is happening now: true while the turn runs, wrong in a saved notebook.
PROGRESS = ("Loading litellm", "waiting for the turn above", "\r")


def headless_notebook(path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_agent"),
        nbformat.v4.new_code_cell("%%agent\nSay hello."),
        nbformat.v4.new_code_cell("%%agent\nAnd again."),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


@pytest.mark.parametrize(
    "runner",
    [
        ["-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "agent.ipynb", "--output", "executed.ipynb"],
        ["-m", "papermill", "agent.ipynb", "executed.ipynb"],
    ],
    ids=["nbconvert", "papermill"],
)
def test_a_headless_run_saves_no_progress_lines(tmp_path, runner):
    headless_notebook(tmp_path / "agent.ipynb")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY") and not key.startswith("JPY_")}
    with FakeProvider() as provider:
        provider.queue(text("Hello ", "there."), text("Hello ", "again."))
        env.update(OPENAI_API_KEY="sk-test", OPENAI_API_BASE=provider.api_base, JUPYTER_AGENT_MODEL="openai/gpt-4.1-mini")
        done = subprocess.run([sys.executable, *runner], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=170)
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = nbformat.read(tmp_path / "executed.ipynb", as_version=4).cells[1:]
    assert "Hello there." in notebook_outputs_text(first) and "Hello again." in notebook_outputs_text(second)
    for cell in (first, second):
        for output in cell.outputs:
            saved = output.get("text", "") + "".join(str(value) for value in output.get("data", {}).values())
            assert not [line for line in PROGRESS if line in saved], saved
