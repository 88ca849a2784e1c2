"""Steering, follow-ups, prepare_request and finish_turn: the hosts' hooks into the loop."""

import pytest

from jupyter_agent import RequestPreparation, TextContent, TurnDecision, UserMessage, run_agent_loop
from jupyter_agent.testing.scripted import call, reply, tool_calls

pytestmark = pytest.mark.anyio


def queue_of(*batches):
    batches = [list(batch) for batch in batches]

    def poll(signal):
        return batches.pop(0) if batches else []

    return poll


async def test_steering_is_polled_before_the_first_request(scripted, options_for):
    scripted.queue(reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, get_steering_messages=queue_of(["also this"])))
    assert [m.role for m in history] == ["user", "user", "assistant"]
    assert scripted.requests[0].context.messages[1].content == "also this"


async def test_steering_arrives_after_the_tool_results(scripted, options_for, make_tool):
    scripted.queue(tool_calls(call("echo", {"value": 1}, id="a"), call("echo", {"value": 2}, id="b")), reply("done"))
    steering = queue_of([], ["use the other file"])
    history = []
    await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo")], get_steering_messages=steering))
    assert [m.role for m in history] == ["user", "assistant", "tool_result", "tool_result", "user", "assistant"]
    second = scripted.requests[1].context.messages
    assert [m.role for m in second[-3:]] == ["tool_result", "tool_result", "user"]


async def test_steering_after_a_tool_free_answer_continues_the_run(scripted, options_for):
    scripted.queue(reply("first"), reply("second"))
    history = []
    final = await run_agent_loop("go", history, options_for(scripted, get_steering_messages=queue_of([], ["wait, one more"])))
    assert final.text == "second" and len(scripted.requests) == 2


async def test_follow_ups_only_after_a_tool_free_answer(scripted, options_for, make_tool):
    calls = []

    def follow_ups(signal):
        calls.append(len(scripted.requests))
        return ["and then this"] if len(calls) == 1 else []

    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("answer"), reply("follow-up answer"))
    history = []
    final = await run_agent_loop(
        "go", history, options_for(scripted, tools=[make_tool("echo")], get_follow_up_messages=follow_ups)
    )
    assert calls == [2, 3]  # never polled after the tool turn
    assert final.text == "follow-up answer"
    assert history[4].content == "and then this"


async def test_follow_ups_are_not_polled_when_steering_delivered(scripted, options_for):
    polled = []
    scripted.queue(reply("a"), reply("b"))

    def follow(signal):
        polled.append(len(scripted.requests))
        return []

    await run_agent_loop(
        "go", [], options_for(scripted, get_steering_messages=queue_of([], ["s"]), get_follow_up_messages=follow)
    )
    assert polled == [2]


async def test_steering_items_may_be_content_blocks(scripted, options_for):
    scripted.queue(reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, get_steering_messages=queue_of([[TextContent(text="block")]])))
    assert history[1].content == [TextContent(text="block")]


async def test_finish_turn_sees_a_snapshot(scripted, options_for):
    seen = []

    def finish_turn(info, signal):
        seen.append((info.message.text, [m.role for m in info.history]))
        info.history.clear()
        info.message.content.clear()

    scripted.queue(reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, finish_turn=finish_turn))
    assert seen == [("ok", ["user", "assistant"])]
    assert len(history) == 2 and history[1].text == "ok"


async def test_finish_turn_can_end_the_run_without_polling_queues(scripted, options_for, make_tool):
    polled = []
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("never"))
    final = await run_agent_loop(
        "go",
        [],
        options_for(
            scripted,
            tools=[make_tool("echo")],
            finish_turn=lambda info, signal: "end",
            get_steering_messages=lambda signal: polled.append(1) or [],
        ),
    )
    assert final.tool_calls and len(scripted.requests) == 1 and polled == [1]  # only the pre-request poll


async def test_finish_turn_decision_replaces_history_in_place(scripted, options_for, make_tool):
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("done"))

    def compact(info, signal):
        if len(info.history) == 3:
            return TurnDecision(history=[UserMessage(content="summary of everything")])
        return None

    history = []
    same_list = history
    await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo")], finish_turn=compact))
    assert history is same_list
    assert [m.role for m in history] == ["user", "assistant"]
    second = scripted.requests[1]
    assert [m.content for m in second.context.messages] == ["summary of everything"]
    assert second.metadata.history_message_count == 1


async def test_prepare_request_overrides_one_request_only(scripted, options_for, make_tool):
    other = scripted.model("other-model")
    preparations = [RequestPreparation(system_prompt="step one", model=other, tools=[make_tool("special")])]

    def prepare(signal):
        return preparations.pop(0) if preparations else None

    scripted.queue(tool_calls(call("special", {"value": 1})), reply("done"))
    history = []
    await run_agent_loop(
        "go", history, options_for(scripted, system_prompt="base", tools=[make_tool("echo")], prepare_request=prepare)
    )
    first, second = scripted.requests
    assert (first.context.system_prompt, first.model.id, [t.name for t in first.context.tools]) == (
        "step one",
        "other-model",
        ["special"],
    )
    assert history[2].content[0].text == "special:1"  # the batch used that request's tools
    assert (second.context.system_prompt, second.model.id, [t.name for t in second.context.tools]) == (
        "base",
        "scripted-model",
        ["echo"],
    )


async def test_a_step_context_goes_with_its_request_only_and_never_into_the_history(scripted, options_for, make_tool):
    contexts = ["## Plan\n[>] 1. load", "## Plan\n[x] 1. load"]

    def prepare(signal):
        return RequestPreparation(step_context=contexts.pop(0)) if contexts else None

    scripted.queue(tool_calls(call("echo", {"value": 1})), tool_calls(call("echo", {"value": 2})), reply("done"))
    history = []
    await run_agent_loop(
        "go", history, options_for(scripted, system_prompt="base", tools=[make_tool("echo")], prepare_request=prepare)
    )
    assert [request.context.step_context for request in scripted.requests] == [
        "## Plan\n[>] 1. load",
        "## Plan\n[x] 1. load",
        None,
    ]
    assert [request.context.system_prompt for request in scripted.requests] == ["base"] * 3
    # The requests' messages are the history alone: the context is no message of either.
    assert [len(request.context.messages) for request in scripted.requests] == [1, 3, 5]
    assert "## Plan" not in str([message.model_dump() for message in history])


async def test_a_failing_callback_fails_the_run(scripted, options_for):
    error = LookupError("queue store offline")

    def steering(signal):
        raise error

    scripted.queue(reply("x"))
    with pytest.raises(LookupError) as caught:
        await run_agent_loop("go", [], options_for(scripted, get_steering_messages=steering))
    assert caught.value is error and scripted.requests == []


async def test_prepare_failure_consumes_no_input(scripted, options_for):
    polled = []

    def prepare(signal):
        raise RuntimeError("cannot prepare")

    with pytest.raises(RuntimeError, match="cannot prepare"):
        await run_agent_loop(
            "go", [], options_for(scripted, prepare_request=prepare, get_steering_messages=lambda s: polled.append(1) or [])
        )
    assert polled == []


async def test_async_callbacks_are_awaited(scripted, options_for):
    async def steering(signal):
        return []

    async def finish(info, signal):
        return "end"

    scripted.queue(reply("ok"))
    assert (
        await run_agent_loop("go", [], options_for(scripted, get_steering_messages=steering, finish_turn=finish))
    ).text == "ok"


async def test_model_is_not_polled_after_a_model_failure(scripted, options_for):
    from jupyter_agent import AgentLoopError
    from jupyter_agent.testing.scripted import failure

    polled = []
    scripted.queue(failure("down"))
    with pytest.raises(AgentLoopError):
        await run_agent_loop(
            "go",
            [],
            options_for(
                scripted,
                finish_turn=lambda i, s: polled.append("finish"),
                get_follow_up_messages=lambda s: polled.append("follow") or [],
            ),
        )
    assert polled == []
