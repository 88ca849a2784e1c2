"""The context window: estimates, projection, the output clamp, and max_context in a run."""

import pytest

from jupyter_agent import AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage, ToolSpec, UserMessage
from jupyter_agent.model.tokens import IMAGE_TOKENS, estimate_message_tokens, estimate_overhead, estimate_tokens
from jupyter_agent.runtime import run_agent
from jupyter_agent.runtime.window import MIN_OUTPUT_TOKENS, ContextWindow
from jupyter_agent.testing.scripted import ScriptedResponse, call, reply

pytestmark = pytest.mark.anyio


def test_estimates_are_about_four_characters_a_token():
    assert estimate_message_tokens(UserMessage(content="x" * 400)) == 104
    blocks = UserMessage(content=[TextContent(text="y" * 40), ImageContent(data="aa", mime_type="image/png")])
    assert estimate_message_tokens(blocks) == 10 + IMAGE_TOKENS + 4
    call_message = AssistantMessage(content=[ToolCall(id="1", name="bash", arguments={"command": "ls"})])
    assert estimate_message_tokens(call_message) > 4
    assert estimate_tokens([UserMessage(content="x" * 400)] * 2) == 208
    assert estimate_overhead("s" * 40, [ToolSpec(name="t", description="d" * 39, parameters={})]) == 10 + 10


def test_projection_starts_from_the_reported_request_and_adds_what_followed():
    window = ContextWindow(window_tokens=10_000, max_output_tokens=2_000, overhead_tokens=50)
    window.reset([UserMessage(content="x" * 400)])
    assert window.projected_input() == 104 + 50
    window.reported(3_000)
    result = ToolResultMessage(tool_call_id="1", tool_name="t", content=[TextContent(text="z" * 4000)])
    window.appended(result)
    assert window.projected_input() == 3_000 + 1_004
    assert window.projected_input(extra_tokens=100) == 4_104
    window.reported(0)  # no report: the projection stands
    assert window.projected_input() == 4_004


def test_fit_and_output_budget():
    window = ContextWindow(window_tokens=10_000, max_output_tokens=16_384, overhead_tokens=0)
    assert window.fits(10_000 - MIN_OUTPUT_TOKENS) and not window.fits(10_000 - MIN_OUTPUT_TOKENS + 1)
    assert window.output_budget(16_384, 16_384, 2_000) == 8_000
    assert window.output_budget(16_384, 4_096, 2_000) == 4_096
    assert window.output_budget(16_384, 16_384, 12_000) == 1
    small = ContextWindow(window_tokens=10_000, max_output_tokens=200, overhead_tokens=0)
    assert small.min_output() == 200 and small.fits(9_800)


async def test_the_default_output_cap_is_sixteen_k(scripted):
    scripted.queue(reply("ok"))
    await run_agent(scripted.model(), "go", stream_fn=scripted).result()
    assert scripted.requests[0].options.max_tokens == 16_384


async def test_the_output_cap_is_clamped_to_the_model_and_the_window_headroom(scripted, kit):
    scripted.queue(ScriptedResponse(content=[call("echo")], usage=kit.usage(8_000, 10)), reply("ok"))
    model = scripted.model(context_window=10_000, max_tokens=4_096)
    await run_agent(model, "go", tools=[kit.make_tool()], stream_fn=scripted, compact_at_tokens=9_999).result()
    first, second = (request.options.max_tokens for request in scripted.requests)
    assert first == 4_096
    assert MIN_OUTPUT_TOKENS <= second < 2_000


def context_run(scripted, kit, **kwargs):
    scripted.queue(
        ScriptedResponse(content=[call("echo", {"value": 1})], usage=kit.usage(100, 10)),
        ScriptedResponse(content=[call("echo", {"value": 2})], usage=kit.usage(9_500, 10)),
        reply("done", usage=kit.usage(300, 10)),
    )
    model = scripted.model(context_window=10_000)
    return run_agent(
        model, "go", tools=[kit.make_tool()], stream_fn=kit.Summaries(scripted), compact_at_tokens=1_000_000, **kwargs
    )


async def test_an_overflowing_window_compacts_rather_than_stops(scripted, kit):
    result = await context_run(scripted, kit, compact_keep_recent=2).result()
    assert (result.reason, result.compactions, result.steps) == ("completed", 1, 3)


async def test_max_context_only_when_even_a_compacted_request_cannot_fit(scripted, kit):
    nothing_to_cut = await context_run(scripted, kit, compact_keep_recent=8).result()
    assert (nothing_to_cut.reason, nothing_to_cut.steps) == ("max_context", 2)
    scripted.responses.clear()
    off = await context_run(scripted, kit, compaction="off").result()
    assert (off.reason, off.steps) == ("max_context", 2)


async def test_max_context_tokens_is_the_window_when_given(scripted, kit):
    scripted.queue(
        ScriptedResponse(content=[call("echo")], usage=kit.usage(100, 10)),
        ScriptedResponse(content=[call("echo")], usage=kit.usage(4_500, 10)),
        reply("never"),
    )
    result = await run_agent(
        scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted, max_context_tokens=5_000, compaction="off"
    ).result()
    assert (result.reason, result.steps) == ("max_context", 2)


async def test_a_continued_transcript_that_no_longer_fits_is_compacted_before_the_first_request(scripted, kit, events):
    prior = [UserMessage(content="the original task")]
    for i in range(10):
        prior += [
            AssistantMessage(content=[ToolCall(id=f"c{i}", name="echo", arguments={})], stop_reason="tool_use"),
            ToolResultMessage(tool_call_id=f"c{i}", tool_name="echo", content=[TextContent(text="r" * 1_000)]),
        ]
    scripted.queue(reply("continuing"))
    run = run_agent(
        scripted.model(context_window=2_500), "next", messages=prior, stream_fn=kit.Summaries(scripted), compact_keep_recent=2
    )
    run.add_listener(events)
    result = await run.result()
    assert result.reason == "completed"
    assert events.types.index("compacted") < events.types.index("step_start")
    view = scripted.requests[0].context.messages
    assert [m.role for m in view] == ["user", "user", "assistant", "tool_result", "user"]
    assert events.of("compacted")[0].first_kept_index == 19
    assert len(result.messages) == len(prior) + 2


async def test_a_prompt_that_cannot_fit_ends_with_max_context_before_any_request(scripted):
    result = await run_agent(scripted.model(context_window=2_000), "x" * 10_000, stream_fn=scripted).result()
    assert (result.reason, result.steps, scripted.requests) == ("max_context", 0, [])
