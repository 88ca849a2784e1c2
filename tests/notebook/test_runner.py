import asyncio
import sys

import pytest
from pydantic import BaseModel
from turn_helpers import RecordingRenderer, gated_tool, make_turn, wait_until

from jupyter_agent.loop import AgentTool
from jupyter_agent.notebook import runner
from jupyter_agent.notebook.model_resolution import ModelChoice
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, reply, tool_calls

pytestmark = pytest.mark.anyio


class NoArgs(BaseModel):
    pass


def mutating_tool(log):
    async def execute(args, signal):
        log.append("ran")
        return "done"

    return AgentTool(name="touch", description="changes things", parameters=NoArgs, execute=execute)


async def test_a_turn_runs_in_the_background_and_is_recorded(manager, renderer, scripted):
    choice = scripted("m1", ScriptedModel([reply("Hello there")]))
    session = manager.get()
    task = runner.start(make_turn(session, renderer, choice))
    assert not task.done()  # start() returns at once
    await task
    assert renderer.text == "Hello there"
    assert renderer.types[-1] == "finish" and renderer.errors == []
    assert [m.role for m in session.store.messages()] == ["user", "assistant"]
    assert renderer.on_stop is not None and renderer.flushed == 1


async def test_turns_of_a_session_run_one_at_a_time_in_order(manager, scripted):
    model = ScriptedModel([reply("first answer", delay=0.01), reply("second answer")])
    choice = scripted("m2", model)
    session = manager.get()
    first, second = RecordingRenderer(), RecordingRenderer()
    task1 = runner.start(make_turn(session, first, choice, prompt="one"))
    task2 = runner.start(make_turn(session, second, choice, prompt="two"))
    await wait_until(lambda: second.states, what="the second turn's first state")
    assert "waiting" in second.states
    await runner.wait_idle(session)
    assert task1.done() and task2.done()
    # The second turn saw the first one's transcript.
    assert [m.role for m in model.requests[1].context.messages] == ["user", "assistant", "user"]


async def test_stop_while_queued_never_starts_the_turn(manager, scripted):
    model = ScriptedModel([reply("slow", delay=0.02), reply("never")])
    choice = scripted("m3", model)
    session = manager.get()
    queued = RecordingRenderer()
    runner.start(make_turn(session, RecordingRenderer(), choice))
    turn = make_turn(session, queued, choice)
    runner.start(turn)
    turn.stop()
    await runner.wait_idle(session)
    assert len(model.requests) == 1
    assert queued.states[-1] == "stopped"


async def test_stop_aborts_a_running_turn(manager, renderer, scripted):
    choice = scripted("m4", ScriptedModel([ScriptedResponse(hang=True)]))
    session = manager.get()
    turn = make_turn(session, renderer, choice)
    task = runner.start(turn)
    await wait_until(lambda: "step_start" in renderer.types, what="the first step")
    renderer.on_stop()
    await asyncio.wait_for(task, 5)
    assert turn.result.reason == "aborted"


async def test_approvals_go_to_the_renderer_of_the_running_turn(manager, scripted):
    log = []
    model = ScriptedModel([tool_calls(call("touch")), reply("ok"), tool_calls(call("touch")), reply("ok")])
    choice = scripted("m5", model)
    session = manager.get()
    allowing = RecordingRenderer(decisions=["tool"])
    await runner.start(make_turn(session, allowing, choice, tools=[mutating_tool(log)]))
    assert log == ["ran"] and len(allowing.asked) == 1
    # "Allow touch for this session" is remembered by the session's policy.
    silent = RecordingRenderer()
    await runner.start(make_turn(session, silent, choice, tools=[mutating_tool(log)]))
    assert log == ["ran", "ran"] and silent.asked == []


async def test_every_exception_is_shown_in_the_renderer(manager, renderer, scripted):
    choice = scripted("m6", ScriptedModel([reply("x")]))

    def broken_tools(current_step):
        raise RuntimeError("tools exploded")

    turn = make_turn(manager.get(), renderer, choice, build_tools=broken_tools)
    await runner.start(turn)  # never raises out of the task
    assert renderer.errors == ["RuntimeError: tools exploded"] and renderer.states[-1] == "error"


async def test_steer_and_follow_up_reach_the_run(manager, renderer, scripted):
    model = ScriptedModel([tool_calls(call("look"), delay=0.02), reply("after steer"), reply("after follow-up")])
    choice = scripted("m7", model)
    tool, started, release = gated_tool()
    turn = make_turn(manager.get(), renderer, choice, tools=[tool])
    task = runner.start(turn)
    await asyncio.wait_for(started.wait(), 5)
    assert renderer.on_steer("use a bar chart") and renderer.on_follow_up("then summarise")
    release.set()
    await task
    sent = [m.content for m in model.requests[1].context.messages if m.role == "user"]
    assert sent[-1] == "use a bar chart"
    assert model.requests[2].context.messages[-1].content == "then summarise"
    assert renderer.on_steer("too late") is False


async def test_wait_idle_is_shielded_from_cancellation(manager, scripted):
    choice = scripted("m8", ScriptedModel([tool_calls(call("look")), reply("done")]))
    session = manager.get()
    tool, started, release = gated_tool()
    task = runner.start(make_turn(session, RecordingRenderer(), choice, tools=[tool]))
    waiter = asyncio.ensure_future(runner.wait_idle(session))
    await asyncio.wait_for(started.wait(), 5)  # the turn is busy: the waiter waits on it
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    release.set()
    await asyncio.wait_for(task, 5)
    assert task.done() and not task.cancelled()


async def test_hooks_called_from_a_subshell_thread_act_on_the_loop(manager, scripted):
    # JupyterLab sends widget comm messages to a kernel subshell: clicks run on another thread.
    model = ScriptedModel([tool_calls(call("look"), delay=0.02), reply("after steer"), ScriptedResponse(hang=True)])
    choice = scripted("m9", model)
    tool, started, release = gated_tool()
    first, second = RecordingRenderer(), RecordingRenderer()
    session = manager.get()
    task = runner.start(make_turn(session, first, choice, tools=[tool]))
    await asyncio.wait_for(started.wait(), 5)
    assert await asyncio.to_thread(first.on_steer, "from a subshell") is True
    await wait_until(lambda: "user_message" in first.types, what="the steer queued on the loop")
    release.set()
    await task
    assert model.requests[1].context.messages[-1].content == "from a subshell"
    turn = make_turn(session, second, choice)
    task = runner.start(turn)
    await wait_until(lambda: "step_start" in second.types, what="the second turn's first step")
    await asyncio.to_thread(second.on_stop)
    await asyncio.wait_for(task, 5)
    assert turn.result.reason == "aborted"
    assert await asyncio.to_thread(second.on_steer, "too late") is False


def blocking_python(renderer, seconds=10.0):
    """A python tool whose code blocks the loop's thread (as agent-run code does) while the Stop
    click arrives on another thread (a kernel subshell); bounded in case nothing interrupts it."""
    import threading
    import time

    class Code(BaseModel):
        code: str

    async def python(args, signal):
        threading.Thread(target=renderer.on_stop).start()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pass
        return "ran to its end"

    return AgentTool(name="python", description="", parameters=Code, execute=python)


async def test_stop_from_a_subshell_interrupts_running_python_as_the_kernel_interrupt_does(manager, scripted):
    model = ScriptedModel([tool_calls(call("python", {"code": "while True: pass"})), reply("never")])
    renderer = RecordingRenderer()
    turn = make_turn(manager.get(), renderer, scripted("m10", model), tools=[blocking_python(renderer)], permissions="yolo")
    await runner.start(turn)
    assert turn.result.reason == "aborted" and len(model.requests) == 1
    result = turn.result.messages[-1]
    assert result.is_error and result.content[0].text == "Interrupted by the user"  # not "ran to its end"
    assert runner.STOP_AFTER_CODE not in renderer.notes


async def test_stop_from_a_subshell_says_at_once_that_the_interrupt_is_needed_where_it_cannot_reach(
    manager, scripted, monkeypatch
):
    from jupyter_agent.notebook.interrupt import InterruptRouter

    # While a cell executes, ipykernel's own handler is in place: a SIGINT would hit the cell.
    monkeypatch.setattr(InterruptRouter, "_handler_in_place", lambda self: False)
    model = ScriptedModel([tool_calls(call("python", {"code": "busy()"})), reply("after")])
    renderer = RecordingRenderer()
    tool = blocking_python(renderer, seconds=0.5)
    turn = make_turn(manager.get(), renderer, scripted("m11", model), tools=[tool], permissions="yolo")
    await runner.start(turn)
    assert runner.STOP_AFTER_CODE in renderer.notes
    assert turn.result.reason == "aborted" and len(model.requests) == 1


async def test_a_resumed_session_shows_the_model_the_summary_framed_as_the_runtime_did(manager, tmp_path):
    from jupyter_agent.messages import Usage
    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.notebook.session_manager import SessionManager
    from jupyter_agent.runtime.compaction import SUMMARY_OPEN

    async def look(args, signal):
        return "seen"

    tool = AgentTool(name="look", description="", parameters=NoArgs, execute=look, read_only=True)
    full = Usage(input=90_000, output=5)  # over 80 % of the 100k window: compaction after the tools
    model = ScriptedModel(
        [
            reply("first"),
            tool_calls(*[call("look") for _ in range(10)], usage=full),
            reply("SUMMARY OF EARLIER WORK"),
            reply("second"),
            reply("third"),
        ]
    )
    register_model("compacting", model, model.model("compacting", context_window=100_000))
    choice = ModelChoice("compacting", "option")
    try:
        session = manager.get()
        await runner.start(make_turn(session, RecordingRenderer(), choice, prompt="hello"))
        turn = make_turn(session, RecordingRenderer(), choice, prompt="work", tools=[tool])
        await runner.start(turn)
        assert turn.result.compactions == 1
        manager.close()  # the kernel restarts: a new manager reads the session file
        resumed = SessionManager({}, workspace_for=lambda folder: folder, env=manager.env)
        await runner.start(make_turn(resumed.get(), RecordingRenderer(), choice, prompt="again"))
        resumed.close()
    finally:
        unregister_model("compacting")
    sent = model.requests[-1].context.messages
    assert sent[1].content == SUMMARY_OPEN + "SUMMARY OF EARLIER WORK" + "\n</compacted-history>"
    assert sent[0].content == "hello" and sent[-1].content == "again"


async def test_an_mcp_json_nested_100_000_deep_is_one_note_naming_the_file_and_the_turn_goes_on(manager, renderer, scripted):
    session = manager.get()
    deep = session.notebook.parent / ".mcp.json"
    deep.write_text('{"mcpServers": ' + "[" * 100_000 + "]" * 100_000 + "}")
    choice = scripted("deep-mcp", ScriptedModel([reply("Answered anyway")]))
    await runner.start(make_turn(session, renderer, choice))
    assert renderer.text == "Answered anyway" and renderer.errors == []
    # One line naming the file (shown again once the turn's other notes are gone), nothing raw.
    assert {note for note in renderer.notes if ".mcp.json" in note} == {
        f"MCP config {deep}: invalid JSON: nested too deeply (more than {sys.getrecursionlimit()} levels)"
    }
    assert "RecursionError" not in " ".join(renderer.notes)
