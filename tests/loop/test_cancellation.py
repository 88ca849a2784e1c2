"""Cancellation: waits interrupted by the signal, iterators closed, every call paired."""

import asyncio

import pytest

from jupyter_agent import AbortController, RunCancelled, TextContent, run_agent_loop
from jupyter_agent.model import AssistantMessageEventStream
from jupyter_agent.testing.scripted import ScriptedResponse, call, reply, tool_calls

pytestmark = pytest.mark.anyio


async def test_cancellation_while_waiting_for_a_stream_event_closes_the_iterator(scripted, options_for, monkeypatch):
    closed = []
    original = AssistantMessageEventStream.aclose

    async def tracking_close(self):
        closed.append(self)
        await original(self)

    monkeypatch.setattr(AssistantMessageEventStream, "aclose", tracking_close)
    scripted.queue(ScriptedResponse(content=[TextContent(text="partial")], hang=True))
    controller = AbortController()

    def listener(event):
        if event.type == "message_update" and event.assistant_message_event.type == "text_end":
            asyncio.get_running_loop().call_later(0.01, controller.abort)

    history = []
    with pytest.raises(RunCancelled) as caught:
        await asyncio.wait_for(run_agent_loop("go", history, options_for(scripted), listener, controller.signal), 2)
    assert caught.value is controller.signal.reason
    assert len(closed) == 1 and closed[0].closed
    assert [m.role for m in history] == ["user"]


async def test_aborted_before_start_changes_nothing(scripted, options_for):
    controller = AbortController()
    controller.abort()
    history = []
    with pytest.raises(RunCancelled, match="^Run cancelled$"):
        await run_agent_loop("go", history, options_for(scripted), signal=controller.signal)
    assert history == [] and scripted.requests == []


async def test_custom_abort_reason_is_raised_as_is(scripted, options_for):
    controller = AbortController()
    reason = TimeoutError("deadline")
    scripted.queue(ScriptedResponse(content=[], hang=True))
    asyncio.get_running_loop().call_later(0.02, controller.abort, reason)
    with pytest.raises(TimeoutError) as caught:
        await asyncio.wait_for(run_agent_loop("go", [], options_for(scripted), signal=controller.signal), 2)
    assert caught.value is reason


async def test_cancellation_before_the_batch_pairs_every_call(scripted, options_for, make_tool, log):
    controller = AbortController()
    scripted.queue(tool_calls(call("echo", {"value": 1}, id="a"), call("echo", {"value": 2}, id="b")))

    def listener(event):
        if event.type == "message_end" and event.message.role == "assistant":
            controller.abort()

    history = []
    with pytest.raises(RunCancelled):
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)]), listener, controller.signal)
    assert log.entries == []
    assert [(m.tool_call_id, m.is_error, m.content[0].text) for m in history[2:]] == [
        ("a", True, "Run cancelled"),
        ("b", True, "Run cancelled"),
    ]


async def test_cancellation_during_a_tool_pairs_the_rest_and_reaches_the_tool(scripted, options_for, make_tool):
    controller = AbortController()
    signals = []

    async def slow(args):
        await asyncio.Event().wait()  # until cancelled

    tool = make_tool("slow", body=slow)
    original = tool.execute

    async def capture_signal(args, signal):
        signals.append(signal)
        return await original(args, signal)

    tool.execute = capture_signal
    scripted.queue(tool_calls(call("slow", {"value": 1}, id="a"), call("slow", {"value": 2}, id="b")))

    def listener(event):
        if event.type == "tool_execution_start":
            asyncio.get_running_loop().call_later(0.02, controller.abort)

    history = []
    with pytest.raises(RunCancelled):
        await asyncio.wait_for(run_agent_loop("go", history, options_for(scripted, tools=[tool]), listener, controller.signal), 2)
    assert signals[0] is controller.signal
    assert [(m.tool_call_id, m.is_error) for m in history[2:]] == [("a", True), ("b", True)]


async def test_cancellation_wins_over_a_concurrent_tool_failure(scripted, options_for, make_tool):
    controller = AbortController()

    def fail_after_abort(args):
        controller.abort()
        raise RuntimeError("tool failed too")

    scripted.queue(tool_calls(call("echo", {"value": 1}, id="a")))
    history = []
    with pytest.raises(RunCancelled):
        await run_agent_loop(
            "go", history, options_for(scripted, tools=[make_tool("echo", body=fail_after_abort)]), signal=controller.signal
        )
    assert history[-1].content[0].text == "Run cancelled"


async def test_task_cancellation_also_pairs_calls(scripted, options_for, make_tool):
    started = asyncio.Event()

    async def slow(args):
        started.set()
        await asyncio.Event().wait()  # until cancelled

    scripted.queue(tool_calls(call("slow", {"value": 1}, id="a")))
    history = []
    task = asyncio.create_task(run_agent_loop("go", history, options_for(scripted, tools=[make_tool("slow", body=slow)])))
    await asyncio.wait_for(started.wait(), 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert history[-1].tool_call_id == "a" and history[-1].content[0].text == "Run cancelled"


async def test_the_loop_is_reusable_after_cancellation(scripted, options_for):
    controller = AbortController()
    scripted.queue(ScriptedResponse(content=[], hang=True), reply("fresh"))
    asyncio.get_running_loop().call_later(0.02, controller.abort)
    history = []
    with pytest.raises(RunCancelled):
        await asyncio.wait_for(run_agent_loop("go", history, options_for(scripted), signal=controller.signal), 2)
    final = await run_agent_loop("again", history, options_for(scripted))
    assert final.text == "fresh"
    assert [m.role for m in history] == ["user", "user", "assistant"]
