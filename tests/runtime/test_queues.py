"""Steering and follow-up: delivery at step boundaries, order, fresh windows, interrupts."""

import asyncio

import pytest

from jupyter_agent import AbortController, TextContent
from jupyter_agent.runtime import Pending, run_agent
from jupyter_agent.runtime.queues import InputQueues
from jupyter_agent.testing.scripted import ScriptedResponse, call, reply, tool_calls

pytestmark = pytest.mark.anyio


def user_texts(messages):
    return [m.content for m in messages if m.role == "user"]


async def test_a_steer_sent_during_step_one_reaches_request_two_only(scripted, kit):
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("done"))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(lambda e: run.steer("use the other file") if e.type == "tool_call" else None)
    result = await run.result()
    assert result.reason == "completed"
    assert "use the other file" not in [m.content for m in scripted.requests[0].context.messages if m.role == "user"]
    second = scripted.requests[1].context.messages
    assert [m.role for m in second] == ["user", "assistant", "tool_result", "user"]
    assert second[-1].content == "use the other file"


async def test_a_steer_during_a_running_tool_waits_for_the_tools_to_settle(scripted, kit):
    started, release = asyncio.Event(), asyncio.Event()
    scripted.queue(tool_calls(call("slow", id="a"), call("echo", id="b")), reply("done"))
    run = run_agent(
        scripted.model(),
        "task",
        tools=[kit.make_tool("slow", started=started, release=release), kit.make_tool()],
        stream_fn=scripted,
    )
    await asyncio.wait_for(started.wait(), 5)
    assert run.steer("change of plan")
    release.set()
    result = await run.result()
    assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "tool_result", "user", "assistant"]
    assert result.messages[4].content == "change of plan"


async def test_a_follow_up_queued_at_start_is_delivered_when_the_run_would_finish(scripted, kit, events):
    scripted.queue(tool_calls(call("echo")), reply("All done."), reply("Changelog updated."))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(events)
    assert run.follow_up("then update the changelog")
    result = await run.result()
    assert (result.steps, result.text) == (3, "Changelog updated.")
    assert [(e.text, e.phase) for e in events.of("user_message")] == [
        ("then update the changelog", "queued"),
        ("then update the changelog", "delivered"),
    ]
    assert all(e.delivery == "follow_up" for e in events.of("user_message"))
    assert user_texts(result.messages) == ["task", "then update the changelog"]
    assert scripted.requests[2].context.messages[-1].content == "then update the changelog"


async def test_a_delivered_steer_grants_a_fresh_step_window(scripted, kit):
    # Without the steer, max_steps=2 would stop after the second tool step.
    scripted.queue(tool_calls(call("echo")), tool_calls(call("echo")), reply("final"))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, max_steps=2)
    run.add_listener(lambda e: run.steer("also do X") if e.type == "step_finish" and e.step == 1 else None)
    result = await run.result()
    assert (result.reason, result.steps) == ("completed", 3)
    assert "also do X" in user_texts(result.messages)


async def test_the_fresh_window_is_the_delivery_step_plus_max_steps(scripted, kit):
    scripted.queue(*[tool_calls(call("echo")) for _ in range(5)], reply("final"))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, max_steps=2)
    run.add_listener(lambda e: run.steer("more") if e.type == "step_finish" and e.step == 1 else None)
    result = await run.result()
    assert (result.reason, result.steps) == ("max_steps", 3)


async def test_steers_come_before_follow_ups_and_each_keeps_its_order(scripted):
    scripted.queue(reply("a"), reply("b"), reply("c"))
    run = run_agent(scripted.model(), "task", stream_fn=scripted)
    assert run.follow_up("second")
    assert run.steer("first")
    assert run.steer("first again")
    result = await run.result()
    assert user_texts(result.messages) == ["task", "first", "first again", "second"]
    assert result.reason == "completed"


async def test_pending_copies_trimming_and_blank_rejection(scripted):
    scripted.queue(ScriptedResponse(content=[TextContent(text="slow")], hang=True))
    run = run_agent(scripted.model(), "task", stream_fn=scripted)
    assert run.pending() == Pending(steer=[], follow_up=[])
    assert run.steer("  padded  ") is True
    assert run.steer("   ") is False and run.steer("") is False and run.follow_up("\n\t") is False
    assert run.follow_up(" later ") is True
    snapshot = run.pending()
    assert snapshot == Pending(steer=["padded"], follow_up=["later"])
    snapshot.steer.append("tampered")
    assert run.pending().steer == ["padded"]
    run.interrupt()
    await run.result()
    assert run.steer("after") is False and run.follow_up("after") is False


async def test_a_steer_sent_while_the_final_answer_streams_keeps_the_run_going(scripted):
    scripted.queue(reply("a long final answer"), reply("answer to the steer"))
    run = run_agent(scripted.model(), "task", stream_fn=scripted)
    run.add_listener(
        lambda e: (
            run.steer("wait, one more thing")
            if e.type == "text_delta" and not run.pending().steer and len(scripted.requests) == 1
            else None
        )
    )
    result = await run.result()
    assert (result.steps, result.text) == (2, "answer to the steer")
    assert user_texts(result.messages) == ["task", "wait, one more thing"]


async def test_interrupt_keeps_queued_messages_pending(scripted, events):
    scripted.queue(ScriptedResponse(content=[TextContent(text="thinking...")], hang=True))
    run = run_agent(scripted.model(), "task", stream_fn=scripted)
    run.add_listener(events)
    run.add_listener(lambda e: (run.steer("keep this"), run.interrupt()) if e.type == "text_delta" else None)
    result = await run.result()
    assert result.reason == "aborted"
    assert events.of("finish")[0].reason == "aborted"
    assert run.pending().steer == ["keep this"]


async def test_an_external_abort_keeps_queued_messages_pending(scripted):
    scripted.queue(ScriptedResponse(content=[TextContent(text="thinking...")], hang=True))
    controller = AbortController()
    run = run_agent(scripted.model(), "task", stream_fn=scripted, signal=controller.signal)
    run.follow_up("later")
    run.add_listener(lambda e: controller.abort() if e.type == "text_delta" else None)
    assert (await run.result()).reason == "aborted"
    assert run.pending().follow_up == ["later"]


async def test_steers_are_plain_user_messages(scripted, kit):
    scripted.queue(tool_calls(call("echo")), reply("done"))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted)
    run.steer("plain text")
    await run.result()
    steer = scripted.requests[0].context.messages[1]
    assert steer.role == "user" and steer.content == "plain text"


def test_queues_announce_queued_and_delivered_in_order():
    announced = []
    queues = InputQueues(announced.append)
    queues.push("b1", "follow_up")
    queues.push("s1", "steer")
    queues.push("s2", "steer")
    assert queues.has_input and queues.queued_text() == ["s1", "s2", "b1"]
    assert queues.take("steer") == ["s1", "s2"] and queues.take("follow_up") == ["b1"]
    assert not queues.has_input
    assert [(e.text, e.delivery, e.phase) for e in announced] == [
        ("b1", "follow_up", "queued"),
        ("s1", "steer", "queued"),
        ("s2", "steer", "queued"),
        ("s1", "steer", "delivered"),
        ("s2", "steer", "delivered"),
        ("b1", "follow_up", "delivered"),
    ]


def test_closed_queues_refuse_and_non_text_is_refused():
    queues = InputQueues(lambda e: None)
    assert queues.push(42, "steer") is False
    queues.closed = True
    assert queues.push("late", "steer") is False and queues.pending() == Pending()
