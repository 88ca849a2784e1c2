"""Terminal IPython through a pty: %%agent streams plain text, asks allow? [y/n/a/A], Ctrl-C stops."""

import os
import sys

import pexpect
import pytest

IPYTHON = [
    sys.executable,
    "-m",
    "IPython",
    "--simple-prompt",
    "--no-banner",
    "--colors=NoColor",
    "--HistoryManager.enabled=False",
]
HANG_SETUP = (
    "from jupyter_agent.notebook.model_resolution import register_model; "
    "from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse; "
    "from jupyter_agent.messages import TextContent; "
    "m = ScriptedModel([ScriptedResponse(content=[TextContent(text='Pondering deeply')], hang=True)]); "
    "register_model('hang', m, m.model('hang'))"
)


@pytest.fixture
def ipython(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "JUPYTER_AGENT_MODEL": "demo",
        "JUPYTER_AGENT_DEMO_DELAY": "0",
        "TERM": "dumb",
    }
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]  # the code under test, not an installed copy
    child = pexpect.spawn(IPYTHON[0], IPYTHON[1:], cwd=str(tmp_path), env=env, encoding="utf-8", timeout=30, dimensions=(50, 200))
    child.expect(r"In \[1\]: ")
    child.sendline("%load_ext jupyter_agent")
    child.expect(r"In \[2\]: ")
    yield child
    child.sendline("exit")
    child.expect(pexpect.EOF)
    child.close()


def send_cell(child, *lines):
    for line in lines:
        child.sendline(line)
    child.sendline("")
    child.sendline("")  # simple prompt: a cell magic's body ends with a blank line


def test_text_streams_and_the_allow_prompt_answers(ipython):
    send_cell(ipython, "%%agent", "What is here?")
    ipython.expect(r"allow python\? \[y/n/a/A\]")
    assert "Let me first look at what is in your kernel." in ipython.before
    ipython.sendline("y")
    ipython.expect(r"In \[3\]: ")
    shown = ipython.before
    assert "user variables:" in shown  # the snippet ran after "y"
    assert "Offline demo model" in shown and "done" in shown


def test_a_denied_call_does_not_run(ipython):
    send_cell(ipython, "%%agent", "Anything?")
    ipython.expect(r"allow python\? \[y/n/a/A\]")
    ipython.sendline("n")
    ipython.expect(r"In \[3\]: ")
    assert "declined the `python` snippet" in ipython.before


def test_ctrl_c_stops_the_turn_and_ipython_carries_on(ipython):
    ipython.sendline(HANG_SETUP)
    ipython.expect(r"In \[3\]: ")
    send_cell(ipython, "%%agent -m hang", "Take your time")
    ipython.expect("Pondering deeply")
    ipython.sendintr()
    ipython.expect(r"In \[4\]: ")
    assert "stopped" in ipython.before
    ipython.sendline("6 * 7")
    ipython.expect(r"Out\[4\]: 42")


def test_ctrl_c_at_the_allow_prompt_leaves_ipython_reading_its_own_input(ipython):
    send_cell(ipython, "%%agent", "What is here?")
    ipython.expect(r"allow python\? \[y/n/a/A\]")
    ipython.sendintr()
    ipython.expect(r"In \[3\]: ")
    ipython.sendline("6 * 7")
    ipython.expect(r"Out\[3\]: 42")  # the first line typed reaches IPython, not a forgotten prompt
    ipython.sendline("7 * 7")
    ipython.expect(r"Out\[4\]: 49")
