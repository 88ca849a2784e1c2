import asyncio

import pytest

from jupyter_agent.messages import Usage, UserMessage
from jupyter_agent.model import Context, ModelCost
from jupyter_agent.testing.scripted import NO_MORE_RESPONSES, ScriptedModel, ScriptedResponse, call, reply, think, tool_calls

pytestmark = pytest.mark.anyio
CONTEXT = Context(messages=[UserMessage(content="hello there")])


async def drain(stream):
    return [event async for event in stream], await stream.result()


async def test_text_streams_in_small_chunks_and_usage_is_estimated():
    model = ScriptedModel([reply("x" * 20)], chunk_size=8)
    m = model.model(cost=ModelCost(input=1_000_000, output=2_000_000))
    events, final = await drain(model(m, CONTEXT))
    assert [e.type for e in events] == ["start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done"]
    assert [e.delta for e in events if e.type == "text_delta"] == ["x" * 8, "x" * 8, "x" * 4]
    assert final.text == "x" * 20 and final.stop_reason == "stop"
    assert final.usage.input > 0 and final.usage.cost.total == final.usage.input + 2 * final.usage.output


async def test_tool_call_arguments_arrive_as_json_fragments():
    model = ScriptedModel([tool_calls(call("read", {"path": "some/long/file.py"}, id="c1"), text="reading")])
    events, final = await drain(model(model.model(), CONTEXT))
    fragments = "".join(e.delta for e in events if e.type == "tool_call_delta")
    assert fragments == '{"path": "some/long/file.py"}'
    end = next(e for e in events if e.type == "tool_call_end")
    assert end.tool_call.arguments == {"path": "some/long/file.py"} and end.content_index == 1
    assert final.stop_reason == "tool_use"


async def test_partials_are_snapshots():
    model = ScriptedModel([reply("abcdefghijklmnop")], chunk_size=4)
    events, _ = await drain(model(model.model(), CONTEXT))
    texts = [e.partial.content[0].text for e in events if e.type == "text_delta"]
    assert texts == ["abcd", "abcdefgh", "abcdefghijkl", "abcdefghijklmnop"]


async def test_thinking_then_text_and_usage_override():
    usage = Usage(input=7, output=3, total_tokens=10)
    model = ScriptedModel([think("ponder", "answer", signature="sig", usage=usage)])
    events, final = await drain(model(model.model(), CONTEXT))
    assert events[1].type == "thinking_start"
    assert final.content[0].thinking_signature == "sig" and final.usage == usage


async def test_exhausted_script_is_an_error_event_and_requests_are_recorded():
    model = ScriptedModel()
    events, final = await drain(model(model.model(), CONTEXT))
    assert events[-1].type == "error" and final.error_message == NO_MORE_RESPONSES
    assert model.requests[0].context == CONTEXT


async def test_responder_callable_sees_the_context():
    model = ScriptedModel([lambda context: f"you said {context.messages[-1].content}"])
    _, final = await drain(model(model.model(), CONTEXT))
    assert final.text == "you said hello there"


async def test_hanging_response_stops_when_closed():
    model = ScriptedModel([ScriptedResponse(content=[], hang=True)])
    stream = model(model.model(), CONTEXT)
    first = await stream.__anext__()
    assert first.type == "start"
    await stream.aclose()
    final = await asyncio.wait_for(stream.result(), 1)
    assert final.stop_reason == "aborted"
