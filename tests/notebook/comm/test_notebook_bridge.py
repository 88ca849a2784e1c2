"""The notebook tools' frontend over the comm: a turn's requests go to the view it came from."""

import pytest
from comm.base_comm import CommManager
from comm_fakes import FakeComm, hello

from jupyter_agent.notebook.comm import register_comm_target, unregister_comm_target
from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend
from jupyter_agent.notebook.comm.protocol import TARGET_NAME
from jupyter_agent.notebook.comm.target import asking_frontend

EDIT = {"op": "replace", "cell_id": "a", "source": "x = 1"}


class Kernel:
    def __init__(self, parent):
        self.comm_manager = CommManager()
        self.parent = parent

    def get_parent(self):
        return self.parent


class Shell:
    def __init__(self, parent):
        self.kernel = Kernel(parent)


@pytest.fixture
def views(handler):
    """A notebook open in two browser tabs: tab-1's view first, then tab-2's (the newest)."""
    shell = Shell({"header": {"session": "tab-1"}})  # the cell being run came from tab 1
    register_comm_target(shell, handler)
    comms = {}
    for comm_id, client in (("tab-1-view", "tab-1"), ("tab-2-view", "tab-2")):
        comms[comm_id] = FakeComm(comm_id)
        shell.kernel.comm_manager.targets[TARGET_NAME](comms[comm_id], hello(client_session=client))
    yield shell, comms
    unregister_comm_target(shell)


def test_a_cells_turn_edits_the_document_of_the_tab_that_ran_the_cell(views):
    shell, comms = views
    frontend = CommNotebookFrontend(shell)  # made in the magic, as a turn starts
    shell.kernel.parent = {"header": {"session": "tab-2"}}  # the turn outlives its cell
    assert frontend.send_edit(EDIT)
    assert comms["tab-1-view"].last["operation"] == EDIT and not comms["tab-2-view"].sent[1:]


def test_a_side_panel_turn_edits_the_view_that_asked(views):
    shell, comms = views
    token = asking_frontend.set("tab-2-view")  # the chat_request came over tab 2's comm
    try:
        frontend = CommNotebookFrontend(shell)
    finally:
        asking_frontend.reset(token)
    assert frontend.send_edit(EDIT)
    assert comms["tab-2-view"].last["operation"] == EDIT and not comms["tab-1-view"].sent[1:]
