import asyncio

import pytest
from turn_helpers import RecordingRenderer, make_turn

from jupyter_agent.notebook import runner
from jupyter_agent.notebook.lab_bridge import NOTHING_RUNNING, LabBridge
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, reply
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


async def test_stop_and_steer_reach_the_running_turns(manager, scripted):
    bridge = LabBridge(shell=None, sessions=manager)
    assert bridge.sessions_folder() == manager.folder
    with pytest.raises(LookupError, match=NOTHING_RUNNING):
        bridge.stop(None)
    choice = scripted("lab", ScriptedModel([ScriptedResponse(hang=True)]))
    turn = make_turn(manager.get(), RecordingRenderer(), choice)
    task = runner.start(turn)
    await wait_until(lambda: turn.run is not None, what="the run")
    assert bridge.steer("look left", None) == "Delivered at the agent's next step."
    assert bridge.stop("main") == "Stopping 1 agent turn."
    await asyncio.wait_for(task, 5)
    assert turn.result.reason == "aborted"
    with pytest.raises(LookupError):
        bridge.steer("too late", "main")


async def test_turn_hooks_tell_the_extension_which_cell_ran(manager, scripted):
    started, finished = [], []
    choice = scripted("hooks", ScriptedModel([reply("hi")]))
    turn = make_turn(
        manager.get(),
        RecordingRenderer(),
        choice,
        cell_id="cell-7",
        on_started=lambda t: started.append(t.request.cell_id),
        on_finished=lambda t, status, steps: finished.append((t.request.cell_id, status, steps)),
    )
    await runner.start(turn)
    assert started == ["cell-7"] and finished == [("cell-7", "completed", 1)]


class FakeTarget:
    def __init__(self, connected=True):
        self.connected = connected
        self.sent = []

    def send_run_finished(self, session, cell_id=None, status="completed", steps=0):
        pass

    def send_materialize(self, cells, parent_cell_hint=None):
        self.sent.append((cells, parent_cell_hint))
        return self.connected


class OfferingRenderer(RecordingRenderer):
    @property
    def offers(self):
        return self.materialize_offers  # what the turn's MaterializeOffered events carried


@pytest.mark.parametrize("connected", [True, False])
async def test_a_finished_turn_offers_to_materialize_its_code_when_the_extension_listens(
    manager, scripted, monkeypatch, connected
):
    from pydantic import BaseModel

    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook import comm
    from jupyter_agent.testing.scripted import call, tool_calls

    class Code(BaseModel):
        code: str

    async def python(args, signal):
        return "ok"

    target = FakeTarget(connected)
    monkeypatch.setattr(comm, "target_for", lambda shell: target)
    model = ScriptedModel(
        [tool_calls(call("python", {"code": "x = 1"})), tool_calls(call("python", {"code": "y = x"})), reply("done")]
    )
    renderer = OfferingRenderer()
    turn = make_turn(
        manager.get(),
        renderer,
        scripted("coder", model),
        permissions="yolo",
        tools=[AgentTool(name="python", description="", parameters=Code, execute=python)],
        cell_id="agent-cell",
        on_finished=LabBridge(shell=None, sessions=manager).turn_finished,
    )
    await runner.start(turn)
    if not connected:
        assert renderer.offers == []
        return
    [(count, materialize)] = renderer.offers
    assert count == 2
    assert materialize() == "Inserting 2 cells below the agent cell."
    [(cells, cell_id)] = target.sent
    assert [cell.code for cell in cells] == ["x = 1", "y = x"] and cell_id == "agent-cell"
    assert cells[0].metadata.session == "main" and cells[1].metadata.step == 2
    target.connected = False  # the frontend went away before the click
    assert "%agent materialize" in materialize()
