import asyncio

import pytest

from jupyter_agent.notebook import runner
from jupyter_agent.notebook.lab_bridge import NOTHING_RUNNING, LabBridge
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, reply
from turn_helpers import RecordingRenderer, make_turn

pytestmark = pytest.mark.anyio


async def test_stop_and_steer_reach_the_running_turns(manager, scripted):
    bridge = LabBridge(shell=None, sessions=manager)
    assert bridge.sessions_folder() == manager.folder
    with pytest.raises(LookupError, match=NOTHING_RUNNING):
        bridge.stop(None)
    choice = scripted("lab", ScriptedModel([ScriptedResponse(hang=True)]))
    turn = make_turn(manager.get(), RecordingRenderer(), choice)
    task = runner.start(turn)
    await asyncio.sleep(0.05)
    assert bridge.steer("look left", None) == "Delivered at the agent's next step."
    assert bridge.stop("main") == "Stopping 1 agent turn."
    await asyncio.wait_for(task, 5)
    assert turn.result.reason == "aborted"
    with pytest.raises(LookupError):
        bridge.steer("too late", "main")


async def test_turn_hooks_tell_the_extension_which_cell_ran(manager, scripted):
    started, finished = [], []
    choice = scripted("hooks", ScriptedModel([reply("hi")]))
    turn = make_turn(manager.get(), RecordingRenderer(), choice)
    turn.cell_id = "cell-7"
    turn.on_started = lambda t: started.append(t.cell_id)
    turn.on_finished = lambda t, status, steps: finished.append((t.cell_id, status, steps))
    await runner.start(turn)
    assert started == ["cell-7"] and finished == [("cell-7", "completed", 1)]
