"""The loop's behaviour: turns, tools, stop reasons, budgets, events and history writes."""

import anyio.lowlevel
import pytest

from jupyter_agent import AgentLoopError, ImageContent, TextContent, UserMessage, run_agent_loop
from jupyter_agent.loop.agent_loop import TRUNCATED
from jupyter_agent.loop.types import ResponseTruncated
from jupyter_agent.messages import AssistantMessage
from jupyter_agent.model import AssistantMessageEventStream, DoneEvent, TextDeltaEvent
from jupyter_agent.testing.scripted import call, failure, reply, tool_calls, truncated

pytestmark = pytest.mark.anyio


async def test_one_response_appends_one_assistant_and_reads_result_once(scripted, options_for, recorder, monkeypatch):
    scripted.queue(reply("Hello"))
    reads = []
    original = AssistantMessageEventStream.result

    async def counting_result(self):
        reads.append(self)
        return await original(self)

    monkeypatch.setattr(AssistantMessageEventStream, "result", counting_result)
    history = []
    final = await run_agent_loop("hi", history, options_for(scripted), recorder)
    assert [m.role for m in history] == ["user", "assistant"]
    assert history[1] == final and final.text == "Hello"
    assert len(reads) == 1 and len(scripted.requests) == 1
    assert recorder.types[:3] == ["message_start", "message_end", "message_start"]
    assert recorder.types[-1] == "message_end"


async def test_two_call_batch_runs_in_order_without_overlap(scripted, options_for, make_tool, log):
    tools = [make_tool("first", log, delay=0.01), make_tool("second", log)]
    scripted.queue(tool_calls(call("first", {"value": 1}, id="a"), call("second", {"value": 2}, id="b")), reply("done"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, tools=tools))
    assert log.entries == [("start", "first", 1), ("end", "first", 1), ("start", "second", 2), ("end", "second", 2)]
    next_context = scripted.requests[1].context.messages
    assert [(m.role, getattr(m, "tool_call_id", None)) for m in next_context[-2:]] == [("tool_result", "a"), ("tool_result", "b")]
    assert next_context[-1].content[0].text == "second:2"


async def test_preamble_text_streams_before_the_tools_run(scripted, options_for, make_tool):
    order = []
    tool = make_tool("work", body=lambda args: order.append("tool") or [TextContent(text="ok")])
    scripted.queue(tool_calls(call("work", {"value": 1}), text="Let me check that"), reply("done"))

    def listener(event):
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            order.append("text")

    await run_agent_loop("go", [], options_for(scripted, tools=[tool]), listener)
    assert order.index("text") < order.index("tool")


async def test_unknown_tool_becomes_an_error_result_listing_at_most_20_names(scripted, options_for, make_tool):
    tools = [make_tool(f"tool{i}") for i in range(25)]
    scripted.queue(tool_calls(call("nope", {})), reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, tools=tools))
    result = history[2]
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("Tool not found: nope. No tool was executed. Available tools: tool0, tool1")
    assert "tool19" in text and "tool20" not in text


async def test_unknown_tool_with_an_empty_registry(scripted, options_for):
    scripted.queue(tool_calls(call("nope", {})), reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted))
    assert history[2].content[0].text == "Tool not found: nope. No tool was executed. No tools are currently available."


async def test_invalid_arguments_never_run_the_tool(scripted, options_for, make_tool, log):
    scripted.queue(tool_calls(call("echo", {"value": "not a number"})), reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)]))
    text = history[2].content[0].text
    assert history[2].is_error and log.entries == []
    assert text.startswith('Validation failed for tool "echo":\n  - value: ')
    assert 'Received arguments:\n{\n  "value": "not a number"\n}' in text


async def test_raising_tool_becomes_an_error_result(scripted, options_for, make_tool):
    def explode(args):
        raise RuntimeError("disk on fire")

    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", body=explode)]))
    assert history[2].is_error and history[2].content[0].text == "disk on fire"
    assert history[3].text == "ok"


async def test_coercion_and_image_results_are_preserved(scripted, options_for, make_tool):
    seen = []
    image = ImageContent(data="aGk=", mime_type="image/png")

    def body(args):
        seen.append(args.value)
        return [TextContent(text="chart"), image]

    scripted.queue(tool_calls(call("plot", {"value": "12"})), reply("ok"))
    history = []
    await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("plot", body=body)]))
    assert seen == [12]
    assert history[1].tool_calls[0].arguments == {"value": "12"}  # the recorded call is untouched
    assert history[2].content == [TextContent(text="chart"), image]


@pytest.mark.parametrize("reason", ["error", "aborted"])
async def test_failed_stop_reasons_stop_without_running_tools(scripted, options_for, make_tool, log, reason):
    response = failure("provider exploded", reason=reason)
    response.content = [call("echo", {"value": 1})]
    scripted.queue(response)
    history = []
    with pytest.raises(AgentLoopError, match="provider exploded"):
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)]))
    assert [m.role for m in history] == ["user", "assistant"] and log.entries == []


async def test_failed_stop_reason_without_message_names_the_reason(scripted, options_for):
    response = failure(None, reason="error")
    scripted.queue(response)
    with pytest.raises(AgentLoopError, match="^Model response ended with error$"):
        await run_agent_loop("go", [], options_for(scripted))


async def test_length_pairs_every_call_with_an_error_result(scripted, options_for, make_tool, log):
    scripted.queue(truncated("cut", call("echo", {"value": 1}, id="a"), call("echo", {"value": 2}, id="b")))
    history = []
    with pytest.raises(ResponseTruncated, match=r"^Model response was truncated \(length\)$"):
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)]))
    assert issubclass(ResponseTruncated, AgentLoopError)  # a failure of the loop, told apart by its kind
    assert log.entries == []
    assert [(m.tool_call_id, m.is_error) for m in history[2:]] == [("a", True), ("b", True)]
    assert "output token limit" in history[2].content[0].text
    assert TRUNCATED == "Model response was truncated (length)"


async def test_a_call_id_answered_in_an_earlier_turn_is_still_paired_when_cut(scripted, options_for, make_tool, log):
    scripted.queue(tool_calls(call("echo", {"value": 1}, id="call_0")), truncated("cut", call("echo", {"value": 2}, id="call_0")))
    history = []
    with pytest.raises(AgentLoopError, match=r"^Model response was truncated \(length\)$"):
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)]))
    assert [m.role for m in history] == ["user", "assistant", "tool_result", "assistant", "tool_result"]
    assert history[4].is_error and "output token limit" in history[4].content[0].text


async def test_max_turns_finishes_the_tool_results_then_refuses(scripted, options_for, make_tool, log):
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("never"))
    history = []
    with pytest.raises(AgentLoopError, match="^Maximum model turns reached: 1$"):
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)], max_turns=1))
    assert [m.role for m in history] == ["user", "assistant", "tool_result"]
    assert len(scripted.requests) == 1


async def test_max_turns_final_answer_returns_and_consumes_no_queued_input(scripted, options_for):
    polled = []
    scripted.queue(reply("final"))

    def follow_ups(signal):
        polled.append("follow")
        return ["more"]

    final = await run_agent_loop("go", [], options_for(scripted, max_turns=1, get_follow_up_messages=follow_ups))
    assert final.text == "final" and polled == []


@pytest.mark.parametrize("bad", [0, -1, 1.5, float("inf"), float("nan"), True, "3"])
async def test_invalid_max_turns_rejected_before_history_changes(scripted, options_for, bad):
    history = [UserMessage(content="earlier")]
    with pytest.raises(ValueError, match="^max_turns must be a positive integer$"):
        await run_agent_loop("go", history, options_for(scripted, max_turns=bad))
    assert len(history) == 1 and scripted.requests == []


async def test_a_failing_listener_cannot_leave_unpaired_calls(scripted, options_for, make_tool):
    scripted.queue(tool_calls(call("echo", {"value": 1}, id="a"), call("echo", {"value": 2}, id="b")))

    def listener(event):
        if event.type == "tool_execution_end":
            raise RuntimeError("listener broke")

    history = []
    with pytest.raises(RuntimeError, match="listener broke"):
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo")]), listener)
    results = [m for m in history if m.role == "tool_result"]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("a", False), ("b", True)]
    assert results[1].content[0].text == "listener broke"


async def test_listener_failing_on_the_assistant_message_end_pairs_all_calls(scripted, options_for, make_tool, log):
    scripted.queue(tool_calls(call("echo", {"value": 1}, id="a")))
    error = RuntimeError("end failed")

    def listener(event):
        if event.type == "message_end" and event.message.role == "assistant":
            raise error

    history = []
    with pytest.raises(RuntimeError) as caught:
        await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo", log)]), listener)
    assert caught.value is error and log.entries == []
    assert history[-1].tool_call_id == "a" and history[-1].is_error


async def test_async_and_sync_listeners_both_work(scripted, options_for):
    seen = []

    async def async_listener(event):
        await anyio.lowlevel.checkpoint()  # it really suspends
        seen.append(event.type)

    scripted.queue(reply("a"), reply("b"))
    await run_agent_loop("go", [], options_for(scripted), async_listener)
    async_count = len(seen)
    await run_agent_loop("go", [], options_for(scripted), seen.append)
    assert async_count > 3 and len(seen) > async_count


async def test_event_payloads_and_returned_message_are_copies(scripted, options_for, make_tool):
    scripted.queue(tool_calls(call("echo", {"value": 1}), text="pre"), reply("final"))
    history = []

    def vandal(event):
        message = getattr(event, "message", None)
        if message is not None and hasattr(message, "content") and isinstance(message.content, list):
            message.content.clear()
        if event.type == "tool_execution_end":
            event.result.content.clear()
            event.args if hasattr(event, "args") else None
        if event.type == "tool_execution_start":
            event.args["value"] = 999

    final = await run_agent_loop("go", history, options_for(scripted, tools=[make_tool("echo")]), vandal)
    final.content.clear()
    assert history[1].text == "pre" and history[1].tool_calls[0].arguments == {"value": 1}
    assert history[2].content[0].text == "echo:1"
    assert history[3].text == "final"


async def test_stream_without_final_event_fails_the_run(options_for, scripted):
    from jupyter_agent.testing.scripted import ScriptedResponse

    scripted.queue(ScriptedResponse(content=[TextContent(text="hi")], no_final=True))
    history = []
    with pytest.raises(AgentLoopError, match="^Model stream ended without a final response$"):
        await run_agent_loop("go", history, options_for(scripted))
    assert [m.role for m in history] == ["user"]


async def test_update_before_start_fails_the_run(options_for, scripted):
    def stream_fn(model, context, options=None, metadata=None):
        stream = AssistantMessageEventStream()
        stream.push(TextDeltaEvent(content_index=0, delta="x", partial=AssistantMessage()))
        stream.push(DoneEvent(reason="stop", message=AssistantMessage()))
        return stream

    options = options_for(scripted)
    options.stream_fn = stream_fn
    with pytest.raises(AgentLoopError, match="^Model stream sent an update before start$"):
        await run_agent_loop("go", [], options)


async def test_raising_stream_fn_propagates_as_is(options_for, scripted):
    error = ConnectionError("no route")

    async def stream_fn(model, context, options=None, metadata=None):
        raise error

    options = options_for(scripted)
    options.stream_fn = stream_fn
    with pytest.raises(ConnectionError) as caught:
        await run_agent_loop("go", [], options)
    assert caught.value is error


async def test_final_only_stream_still_gets_message_start_and_end(scripted, options_for, recorder):
    from jupyter_agent.testing.scripted import ScriptedResponse

    scripted.queue(ScriptedResponse(content=[TextContent(text="whole")], final_only=True))
    final = await run_agent_loop("go", [], options_for(scripted), recorder)
    assert final.text == "whole"
    assert recorder.types == ["message_start", "message_end", "message_start", "message_end"]


async def test_awaitable_stream_fn_is_accepted(scripted, options_for):
    scripted.queue(reply("async stream"))

    async def stream_fn(*args):
        return scripted(*args)

    options = options_for(scripted)
    options.stream_fn = stream_fn
    assert (await run_agent_loop("go", [], options)).text == "async stream"


async def test_event_order_for_one_tool_round(scripted, options_for, make_tool, recorder):
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("done"))
    await run_agent_loop("go", [], options_for(scripted, tools=[make_tool("echo")]), recorder)
    compact = [t for t in recorder.types if t != "message_update"]
    assert compact == [
        "message_start",
        "message_end",  # user
        "message_start",
        "message_end",  # assistant with the call
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",  # result
        "message_start",
        "message_end",  # final assistant
    ]


async def test_continuing_history_without_input(scripted, options_for):
    history = [UserMessage(content="earlier question")]
    scripted.queue(reply("answer"))
    await run_agent_loop(None, history, options_for(scripted))
    assert [m.role for m in history] == ["user", "assistant"]
    with pytest.raises(ValueError, match="^Prompt is required$"):
        await run_agent_loop(None, [], options_for(scripted))


async def test_tool_specs_reach_the_context_without_execute(scripted, options_for, make_tool):
    scripted.queue(reply("ok"))
    await run_agent_loop("go", [], options_for(scripted, tools=[make_tool("echo")], system_prompt="be brief"))
    context = scripted.requests[0].context
    assert context.system_prompt == "be brief"
    spec = context.tools[0]
    assert spec.name == "echo" and spec.parameters["properties"]["value"]["type"] == "integer"
    assert "execute" not in spec.model_dump()
