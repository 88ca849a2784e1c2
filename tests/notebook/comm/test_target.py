import asyncio
import threading

import pytest
from comm_fakes import FakeComm, hello

from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME, CellSpec, Provenance
from jupyter_agent.notebook.comm.target import AgentCommTarget
from jupyter_agent.testing.waiting import wait_until


@pytest.fixture
def target(handler, manager):
    target = AgentCommTarget(handler, manager)
    target.register()
    return target


def connect(target, manager, comm_id="frontend-1", client_session=None):
    comm = FakeComm(comm_id)
    manager.targets[TARGET_NAME](comm, hello(client_session=client_session))
    return comm


def test_registering_adds_the_target_and_a_beacon_that_comm_info_lists(target, manager):
    assert TARGET_NAME in manager.targets
    beacons = [c for c in manager.comms.values() if c.target_name == TARGET_NAME]
    assert len(beacons) == 1
    target.unregister()
    assert TARGET_NAME not in manager.targets
    assert not manager.comms


def test_a_frontend_is_welcomed_with_the_running_turns(target, manager):
    target.send_run_started("main", "cell-7")
    comm = connect(target, manager)
    assert target.connected
    welcome = comm.last
    assert welcome["type"] == "welcome" and welcome["version"] == PROTOCOL_VERSION
    assert welcome["runs"] == [{"session": "main", "cell_id": "cell-7"}]


def test_a_frontend_of_another_protocol_version_is_refused(target, manager):
    comm = FakeComm()
    manager.targets[TARGET_NAME](comm, hello(version=PROTOCOL_VERSION + 1))
    assert comm.closed and not target.connected
    assert comm.last == {
        "type": "reply",
        "request_id": None,
        "ok": False,
        "message": (
            f"the JupyterLab extension speaks protocol {PROTOCOL_VERSION + 1} and this kernel's jupyter_agent "
            f"speaks {PROTOCOL_VERSION}: install matching versions"
        ),
    }


def test_a_comm_must_open_with_hello(target, manager):
    comm = FakeComm()
    manager.targets[TARGET_NAME](comm, {"content": {"data": {"type": "stop", "request_id": "r"}}})
    assert comm.closed and comm.last["message"] == "a comm must open with hello, not stop"


def test_stop_and_steer_go_to_the_handler(target, manager, handler):
    comm = connect(target, manager)
    comm.receive({"type": "stop", "request_id": "r1"})
    assert comm.last == {"type": "reply", "request_id": "r1", "ok": True, "message": "Stopped the agent."}
    comm.receive({"type": "steer", "request_id": "r2", "text": "use a bar chart", "session": "main"})
    assert comm.last["ok"] and comm.last["request_id"] == "r2"
    assert handler.calls == [("stop", None), ("steer", "use a bar chart", "main")]


def test_a_refusing_handler_becomes_a_failed_reply(target, manager, handler):
    comm = connect(target, manager)
    handler.refuse = LookupError("No agent is running.")
    comm.receive({"type": "stop", "request_id": "r1"})
    assert comm.last == {"type": "reply", "request_id": "r1", "ok": False, "message": "No agent is running."}


def test_bad_messages_get_a_failed_reply_and_the_comm_stays_open(target, manager):
    comm = connect(target, manager)
    comm.receive({"type": "dance", "request_id": "r9"})
    assert comm.last["ok"] is False and comm.last["request_id"] == "r9"
    assert comm.last["message"].startswith("unknown message type 'dance'")
    comm.receive("not an object")
    assert comm.last["message"] == "a message must be a JSON object, not str"
    assert target.connected and not comm.closed


def test_sessions_and_transcripts(target, manager, session):
    comm = connect(target, manager)
    target.send_run_started("main")
    comm.receive({"type": "list_sessions", "request_id": "r1"})
    answer = comm.last
    assert answer["type"] == "sessions" and answer["folder"] == str(session.parent)
    assert [(s["name"], s["messages"], s["running"]) for s in answer["sessions"]] == [("main", 10, True)]
    comm.receive({"type": "open_session", "request_id": "r2", "session": "main"})
    assert comm.last["type"] == "transcript" and comm.last["session"] == "main"
    assert "### You\n\nsecond" in comm.last["markdown"]
    comm.receive({"type": "open_session", "request_id": "r3", "session": "../../etc/passwd"})
    assert comm.last["ok"] is False and comm.last["request_id"] == "r3"


def test_a_materialize_request_answers_with_the_last_turn_below_its_cell(target, manager, session):
    comm = connect(target, manager)
    target.send_run_finished("main", "cell-3", status="completed", steps=3)
    comm.receive({"type": "materialize_request", "request_id": "r1"})
    answer = comm.last
    assert answer["type"] == "materialize" and answer["request_id"] == "r1" and answer["cell_id"] == "cell-3"
    assert [(c["code"], c["metadata"]["step"]) for c in answer["cells"]] == [("y = 2", 1), ("print(y)", 2)]


def test_a_materialize_request_without_sessions_explains(target, manager):
    comm = connect(target, manager)
    comm.receive({"type": "materialize_request", "request_id": "r1"})
    assert comm.last == {"type": "reply", "request_id": "r1", "ok": False, "message": "This notebook has no agent session yet."}


def test_run_state_and_materialize_go_to_every_frontend(target, manager):
    first, second = connect(target, manager, "f1"), connect(target, manager, "f2")
    target.send_run_started("main", "c1")
    target.send_run_finished("main", "c1", status="aborted", steps=2)
    for comm in (first, second):
        assert comm.sent[-2:] == [
            {"type": "run_started", "session": "main", "cell_id": "c1"},
            {"type": "run_finished", "session": "main", "cell_id": "c1", "status": "aborted", "steps": 2},
        ]
    assert target.runs == {} and target.last_cell == {"main": "c1"}
    cells = [CellSpec(code="x = 1", metadata=Provenance(session="main", step=1))]
    assert target.send_materialize(cells, "c1") is True
    assert second.last["type"] == "materialize" and second.last["cell_id"] == "c1"


def test_without_frontends_materialize_reports_that_nothing_listens(target, manager):
    cells = [CellSpec(code="x = 1", metadata=Provenance(session="main", step=1))]
    assert target.send_materialize(cells) is False
    comm = connect(target, manager)
    comm.close_from_frontend()
    assert not target.connected
    assert target.send_materialize(cells) is False
    assert target.send_materialize([], None) is False


def test_unregistering_closes_the_frontends(target, manager):
    comm = connect(target, manager)
    target.unregister()
    assert comm.closed and not target.connected


def test_messages_from_a_subshell_thread_are_handled_on_the_loop_thread(handler, manager):
    async def scenario():
        target = AgentCommTarget(handler, manager, loop=asyncio.get_running_loop())
        target.register()
        comm = connect(target, manager)
        handled_on = []
        handled = asyncio.Event()
        original = handler.stop

        def stop(session):
            handled_on.append(threading.get_ident())
            handled.set()
            return original(session)

        handler.stop = stop
        worker = threading.Thread(target=comm.receive, args=({"type": "stop", "request_id": "r"},))
        worker.start()
        worker.join(5)  # blocks the loop: what the worker scheduled cannot have run yet
        assert handled_on == []
        await asyncio.wait_for(handled.wait(), 5)
        assert handled_on == [threading.get_ident()]
        assert comm.last["request_id"] == "r"

    asyncio.run(scenario())


@pytest.mark.anyio
async def test_a_notebook_request_is_answered_by_the_frontends_reply(target, manager):
    from jupyter_agent.notebook.comm import protocol as p

    comm = connect(target, manager)
    request = p.NotebookRequest(request_id="n1", action="read")
    waiting = asyncio.ensure_future(target.notebook_request(request, timeout=5))
    await wait_until(lambda: comm.sent[-1] == request.to_json(), what="the request sent")
    assert comm.sent[-1] == request.to_json()
    target.handle(comm, {"type": "notebook_reply", "request_id": "n1", "ok": True, "cells": [{"id": "a"}]})
    reply = await waiting
    assert reply.cells == [{"id": "a"}] and comm.sent[-1] == request.to_json()  # the reply is not answered
    with pytest.raises(asyncio.TimeoutError):
        await target.notebook_request(p.NotebookRequest(request_id="n2", action="read"), timeout=0.01)


class AskingHandler:
    """A handler whose side panel turn notes, as it starts, where its notebook requests will go."""

    def __init__(self, target_of):
        self.target_of = target_of
        self.addressees = []

    def chat(self, request, send):
        from jupyter_agent.notebook.comm import protocol as p

        self.addressees.append(self.target_of().addressee(None))
        return p.ChatStarted(request_id=request.request_id, session="chat", model_id="m")


@pytest.mark.anyio
async def test_a_side_panel_turns_notebook_requests_go_to_the_view_that_asked_not_the_newest(manager):
    from jupyter_agent.notebook.comm import protocol as p

    handler = AskingHandler(lambda: target)
    target = AgentCommTarget(handler, manager)
    target.register()
    asking = connect(target, manager, "view-1", client_session="tab-1")
    newest = connect(target, manager, "view-2", client_session="tab-1")  # a second view, opened later
    asking.receive({"type": "chat_request", "request_id": "c1", "prompt": "what is df?"})
    [addressee] = handler.addressees
    assert addressee.comm_id == "view-1"
    request = p.NotebookRequest(request_id="n1", action="read")
    waiting = asyncio.ensure_future(target.notebook_request(request, timeout=5, to=addressee))
    await wait_until(lambda: request.to_json() in asking.sent, what="the request sent to the view that asked")
    assert request.to_json() not in newest.sent
    # Another view answering the same id is not the answer: only the asked view's reply counts.
    target.handle(newest, {"type": "notebook_reply", "request_id": "n1", "ok": True, "cells": [{"id": "other"}]})
    target.handle(asking, {"type": "notebook_reply", "request_id": "n1", "ok": True, "cells": [{"id": "asked"}]})
    assert (await waiting).cells == [{"id": "asked"}]


def test_a_cells_turn_addresses_a_view_of_the_browser_tab_that_ran_the_cell(target, manager):
    from jupyter_agent.notebook.comm import protocol as p
    from jupyter_agent.notebook.comm.target import Addressee

    in_front = connect(target, manager, "tab-1-view", client_session="tab-1")
    other_tab = connect(target, manager, "tab-2-view", client_session="tab-2")  # its own unsaved document
    request = p.NotebookRequest(request_id="n1", action="edit", operation={"op": "delete", "cell_id": "a"})
    assert target.send_notebook_request(request, Addressee(client="tab-1"))
    assert in_front.last == request.to_json() and request.to_json() not in other_tab.sent
    # A view that closed: a view of the same tab, else the newest.
    in_front.close_from_frontend()
    assert target.frontend_for(Addressee(comm_id="tab-1-view", client="tab-1")) is other_tab
    assert target.frontend_for(None) is other_tab and target.clients == {"tab-2-view": "tab-2"}
