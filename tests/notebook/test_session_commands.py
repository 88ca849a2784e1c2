"""%agent sessions lists the turns re-runs replaced; %agent history --branch N shows them."""

from types import SimpleNamespace

import pytest
from IPython.core.error import UsageError

from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.notebook.session_commands import history_command, sessions_command
from jupyter_agent.notebook.session_manager import SessionManager
from jupyter_agent.session.records import CellRef


def turn(store, prompt, cell_id):
    store.record_request("model-x", {}, cell=CellRef(cell_id=cell_id))
    store.append(UserMessage(content=prompt))
    store.append(AssistantMessage(content=[TextContent(text=f"answer to {prompt}")]))


@pytest.fixture
def magics(tmp_path):
    manager = SessionManager({}, workspace_for=lambda folder: folder, env={"JPY_SESSION_NAME": str(tmp_path / "nb.ipynb")})
    store = manager.get("main").store
    turn(store, "What data do I have?", "a")
    turn(store, "Plot it.", "b")
    store.redo(store.turns()[0].start)  # cell a ran again
    turn(store, "What data do I have, again?", "a")
    return SimpleNamespace(sessions=manager)


def test_sessions_lists_the_replaced_turns(magics):
    report = sessions_command(magics, SimpleNamespace(adopt=None))
    assert "main (current): 2 messages" in report.text
    assert "main branch 1: 2 turns (“What data do I have?”, “Plot it.”), last active " in report.text
    assert report.text.endswith(": %agent history -s main --branch 1")
    assert "**Replaced turns**" in report.markdown


def test_history_shows_a_branch_or_says_which_exist(magics):
    active = history_command(magics, SimpleNamespace(session="main", branch=None))
    assert "again?" in active.text and "Plot it." not in active.text
    replaced = history_command(magics, SimpleNamespace(session="main", branch=1))
    assert replaced.text.startswith("Branch 1 of session main (replaced; not what the next turn continues)")
    assert "You: What data do I have?" in replaced.text and "You: Plot it." in replaced.text
    with pytest.raises(UsageError, match=r"session 'main' has no branch 2 \(its branches: 1; see %agent sessions\)"):
        history_command(magics, SimpleNamespace(session="main", branch=2))
