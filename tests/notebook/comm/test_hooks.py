import pytest
from comm.base_comm import CommManager
from comm_fakes import FakeComm, hello, record_turn

from jupyter_agent.notebook.comm import (
    DetachedTarget,
    current_cell_id,
    current_client,
    materialize_last_turn,
    register_comm_target,
    target_for,
    unregister_comm_target,
)
from jupyter_agent.notebook.comm.protocol import TARGET_NAME
from jupyter_agent.session import SessionStore


class Kernel:
    def __init__(self, parent=None):
        self.comm_manager = CommManager()
        self.parent = parent or {}

    def get_parent(self):
        return self.parent


class Shell:
    def __init__(self, kernel=None):
        self.kernel = kernel
        self.next_inputs = []

    def set_next_input(self, text, replace=False):
        self.next_inputs.append(text)


class TerminalShell:
    """Terminal IPython: no kernel, no comms."""

    def set_next_input(self, text, replace=False):
        self.text = text


def test_terminal_ipython_gets_no_target_and_a_detached_stand_in(handler):
    shell = TerminalShell()
    assert register_comm_target(shell, handler) is None
    detached = target_for(shell)
    assert isinstance(detached, DetachedTarget) and not detached.connected
    detached.send_run_started("main", None)
    detached.send_run_finished("main", None, status="completed", steps=1)
    assert detached.send_materialize([], None) is False
    unregister_comm_target(shell)  # nothing registered: no error


def test_registering_again_replaces_the_target(handler):
    shell = Shell(Kernel())
    first = register_comm_target(shell, handler)
    second = register_comm_target(shell, handler)
    assert target_for(shell) is second and first is not second
    assert len(shell.kernel.comm_manager.comms) == 1  # one beacon, not two
    unregister_comm_target(shell)
    assert isinstance(target_for(shell), DetachedTarget)
    assert TARGET_NAME not in shell.kernel.comm_manager.targets


def test_the_cell_id_comes_from_the_execute_request_metadata():
    assert current_cell_id(Shell(Kernel({"metadata": {"cellId": "abc-1"}}))) == "abc-1"
    assert current_cell_id(Shell(Kernel({"metadata": {}}))) is None


def test_the_current_client_is_the_session_of_the_message_being_handled():
    assert current_client(Shell(Kernel({"header": {"session": "tab-1"}}))) == "tab-1"
    assert current_client(Shell(Kernel({"header": {}}))) is None
    assert current_client(object()) is None
    assert current_cell_id(Shell(Kernel({}))) is None
    assert current_cell_id(TerminalShell()) is None


def test_materialize_without_a_frontend_fills_the_next_input(handler, folder, session):
    shell = Shell(Kernel())
    register_comm_target(shell, handler)
    message = materialize_last_turn(shell, folder)
    assert message == "The code of 2 cells of session 'main' is in the next input."
    assert shell.next_inputs == [
        "# agent session 'main', step 1 (test-model)\ny = 2\n\n# agent session 'main', step 2 (test-model)\nprint(y)\n"
    ]


def test_materialize_with_a_frontend_inserts_cells_below_the_agent_cell(handler, folder, session):
    shell = Shell(Kernel())
    target = register_comm_target(shell, handler)
    comm = FakeComm()
    shell.kernel.comm_manager.targets[TARGET_NAME](comm, hello())
    target.send_run_finished("main", "cell-9", status="completed", steps=3)
    assert materialize_last_turn(shell, folder, "main") == "Inserting 2 cells of session 'main' below its agent cell."
    assert comm.last["type"] == "materialize" and comm.last["cell_id"] == "cell-9"
    assert shell.next_inputs == []


def test_materialize_explains_what_is_missing(handler, folder):
    shell = Shell(Kernel())
    with pytest.raises(LookupError, match="This notebook has no agent session yet."):
        materialize_last_turn(shell, folder)
    store = SessionStore(folder / "other.jsonl")
    record_turn(store, "only", ["raise ValueError"], failing=(0,))
    store.close()
    with pytest.raises(LookupError, match="The last turn of session 'other' ran no Python code that succeeded."):
        materialize_last_turn(shell, folder)
    with pytest.raises(LookupError, match="no session named 'ghost'"):
        materialize_last_turn(shell, folder, "ghost")
