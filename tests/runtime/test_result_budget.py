"""Tool results sized for the model's window: a small-context model keeps working after a big result."""

import pytest
from pydantic import BaseModel

from jupyter_agent import AgentTool, AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.runtime import run_agent
from jupyter_agent.runtime.result_budget import (
    MIN_RESULT_CHARS,
    clamp_blocks,
    clamp_text,
    result_char_budget,
    shrink_results,
)
from jupyter_agent.testing.scripted import ScriptedResponse, call, reply

pytestmark = pytest.mark.anyio

BIG = "".join(f"line {i:05d} of a long listing\n" for i in range(1_725))  # 50 KB: a capped result
SMALL_WINDOW = 8_000


def big_tool(kit):
    return kit.make_tool("dump", body=lambda args: [TextContent(text=BIG)])


async def test_a_capped_result_does_not_brick_an_8k_model(scripted, kit):
    assert len(BIG) >= 50_000
    scripted.queue(ScriptedResponse(content=[call("dump")]), reply("It is a listing."), reply("Still here."))
    model = scripted.model(context_window=SMALL_WINDOW)
    first = await run_agent(model, "dump it", tools=[big_tool(kit)], stream_fn=scripted).result()
    assert (first.reason, first.steps) == ("completed", 2)
    seen = scripted.requests[1].context.messages[-1]
    text = seen.content[0].text
    assert len(text) <= result_char_budget(SMALL_WINDOW) and text.startswith("line 00000")
    assert text.rstrip().endswith("line 01724 of a long listing")
    assert f"characters cut from this tool result to fit the model's context window ({SMALL_WINDOW} tokens)" in text
    later = await run_agent(model, "and now?", messages=first.messages, tools=[big_tool(kit)], stream_fn=scripted).result()
    assert (later.reason, later.text) == ("completed", "Still here.")


async def test_a_resumed_history_with_an_oversized_kept_result_is_shrunk_not_refused(scripted, kit, events):
    # Recorded with a large-window model: the kept tail alone no longer fits 8 k tokens.
    prior = [
        UserMessage(content="dump it"),
        AssistantMessage(content=[ToolCall(id="c1", name="dump", arguments={})], stop_reason="tool_use"),
        ToolResultMessage(tool_call_id="c1", tool_name="dump", content=[TextContent(text=BIG)]),
        AssistantMessage(content=[TextContent(text="A listing.")], stop_reason="stop"),
    ]
    scripted.queue(reply("Here."))
    run = run_agent(
        scripted.model(context_window=SMALL_WINDOW), "what was line 5?", messages=prior, stream_fn=kit.Summaries(scripted)
    )
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, len(scripted.requests)) == ("completed", 1)
    sent = scripted.requests[0].context.messages
    assert [m.role for m in sent] == ["user", "assistant", "tool_result", "assistant", "user"]
    assert "characters cut from this tool result" in sent[2].content[0].text
    assert result.messages[2].content[0].text == BIG  # the transcript keeps the whole result


async def test_a_5_mb_tool_argument_is_refused_in_one_line_and_the_session_goes_on(scripted, kit):
    ran = []

    class Content(BaseModel):
        value: str

    async def write(args, signal):
        ran.append(args)
        return [TextContent(text="saved")]

    save = AgentTool(name="save", description="Save content", parameters=Content, execute=write)
    huge = {"value": "x" * 5_000_000}
    scripted.queue(ScriptedResponse(content=[call("save", huge)]), reply("I will write it in parts."), reply("Still here."))
    model = scripted.model(context_window=128_000)
    first = await run_agent(model, "save it", tools=[save], stream_fn=scripted).result()
    assert (first.reason, first.steps) == ("completed", 2) and ran == []  # the call never ran
    [refusal] = [m for m in first.messages if m.role == "tool_result"]
    assert refusal.is_error and refusal.content[0].text == (
        "The arguments of this call are 5000012 characters, over the 128000 one tool call may carry for this "
        "model's context window (128000 tokens): it was not run. Send large content in parts (write a part, then "
        "edit to add the next), or have python or bash produce it."
    )
    sent = scripted.requests[1].context.messages[1]  # what the next request carried of the call
    assert sent.content[0].arguments == {"omitted": "5000012 characters of arguments, over the 128000 one tool call may carry"}
    later = await run_agent(model, "and now?", messages=first.messages, tools=[save], stream_fn=scripted).result()
    assert (later.reason, later.text) == ("completed", "Still here.")  # resumed: no way out but --new no more


async def test_a_history_that_cannot_be_shrunk_enough_still_ends_with_max_context(scripted):
    prompt = "x" * 40_000  # the prompt itself is too big: no tool result to cut
    result = await run_agent(scripted.model(context_window=SMALL_WINDOW), prompt, stream_fn=scripted).result()
    assert (result.reason, scripted.requests) == ("max_context", [])


def test_the_budget_scales_with_the_window_and_leaves_large_windows_to_the_tools_caps():
    assert result_char_budget(8_000) == 8_000
    assert result_char_budget(128_000) == 128_000 > 50_000
    assert result_char_budget(1_000) == MIN_RESULT_CHARS


def test_clamping_keeps_head_and_tail_and_shares_the_budget_between_blocks():
    text = "a" * 5_000 + "b" * 5_000
    clamped = clamp_text(text, 2_000, 8_000)
    assert len(clamped) <= 2_000 and clamped.startswith("a" * 900) and clamped.endswith("b" * 900)
    assert clamp_text("short", 2_000, 8_000) == "short"
    image = ImageContent(data="aa", mime_type="image/png")
    blocks = clamp_blocks([TextContent(text="x" * 1_500), image, TextContent(text="y" * 1_500)], 2_000, 8_000)
    assert blocks[0].text == "x" * 1_500 and blocks[1] is image
    assert len(blocks[2].text) <= 500 and "characters cut" in blocks[2].text


def test_shrinking_cuts_only_what_is_needed_and_reports_the_saving():
    results = [
        ToolResultMessage(tool_call_id=f"c{i}", tool_name="t", content=[TextContent(text="z" * size)])
        for i, size in enumerate((40_000, 3_000))
    ]
    shrunk, saved = shrink_results(results, 5_000, SMALL_WINDOW)
    assert len(shrunk[0].content[0].text) <= 8_000 and shrunk[1] is results[1]
    assert saved >= 5_000
    assert shrink_results(results, 100_000, SMALL_WINDOW) is None
