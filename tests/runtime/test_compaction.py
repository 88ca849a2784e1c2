"""Compaction: planning the cut, the summary modes, and compaction inside a run."""

import pytest

from jupyter_agent import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.runtime import run_agent
from jupyter_agent.runtime.compaction import (
    SUMMARY_OPEN,
    align_tail_start,
    plan_compaction,
    summary_message,
    truncate_summary,
)
from jupyter_agent.testing.scripted import ScriptedResponse, call, reply

pytestmark = pytest.mark.anyio


def exchange(i):
    return [
        AssistantMessage(content=[ToolCall(id=f"c{i}", name="read", arguments={"i": i})], stop_reason="tool_use"),
        ToolResultMessage(tool_call_id=f"c{i}", tool_name="read", content=[TextContent(text=f"r{i}")]),
    ]


def transcript(pairs):
    messages = [UserMessage(content="the task")]
    for i in range(pairs):
        messages += exchange(i)
    return messages


@pytest.mark.parametrize("keep, start", [(3, 5), (1, 7), (8, 1), (50, 0), (2, 7)])
def test_the_tail_never_starts_on_a_tool_result(keep, start):
    assert align_tail_start(transcript(4), keep) == start


@pytest.mark.parametrize("keep", range(2, 11))
def test_no_result_is_orphaned_and_no_call_unanswered_for_any_keep_recent(keep):
    messages = transcript(5)
    plan = plan_compaction(messages, keep)
    # 11 messages: from 9 kept on, the aligned tail reaches the head and nothing is left to cut.
    assert (plan is None) == (keep >= 9)
    view = messages if plan is None else plan.head + [summary_message("s")] + plan.tail
    calls = {c.id for m in view if m.role == "assistant" for c in m.tool_calls}
    results = {m.tool_call_id for m in view if m.role == "tool_result"}
    assert calls == results
    assert view[0] is messages[0]


def test_a_parallel_batch_stays_together():
    messages = [
        UserMessage(content="task"),
        *exchange(0),
        AssistantMessage(content=[ToolCall(id="a", name="x"), ToolCall(id="b", name="y")], stop_reason="tool_use"),
        ToolResultMessage(tool_call_id="a", tool_name="x"),
        ToolResultMessage(tool_call_id="b", tool_name="y"),
    ]
    assert align_tail_start(messages, 1) == 3


def test_nothing_to_compact_gives_no_plan():
    assert plan_compaction([UserMessage(content="task"), AssistantMessage(content=[TextContent(text="done")])], 2) is None
    assert plan_compaction([], 2) is None
    plain = [
        UserMessage(content=str(i)) if i % 2 == 0 else AssistantMessage(content=[TextContent(text=str(i))]) for i in range(10)
    ]
    plan = plan_compaction(plain, 2)
    assert (len(plan.head), len(plan.middle), len(plan.tail), plan.tail_start) == (1, 7, 2, 8)


def test_the_head_runs_to_the_first_user_message():
    messages = [AssistantMessage(content=[TextContent(text="hello")]), UserMessage(content="task"), *exchange(0), *exchange(1)]
    plan = plan_compaction(messages, 2)
    assert [m.role for m in plan.head] == ["assistant", "user"] and plan.tail_start == 4


def test_truncate_summary_has_a_short_line_per_message_and_a_cap():
    lines = truncate_summary([UserMessage(content="x" * 500), *exchange(0)]).splitlines()
    assert lines[0].startswith("[user] xxx") and len(lines[0]) < 200
    assert lines[1] == '[assistant] called read({"i": 0})' and lines[2] == "[tool_result] r0"
    many = truncate_summary([UserMessage(content="y" * 300) for _ in range(500)])
    assert len(many) < 13_000 and many.splitlines()[-1].endswith("earlier messages not shown)")


def tool_step(kit, input_tokens, i=0):
    return ScriptedResponse(content=[call("echo", {"value": i})], usage=kit.usage(input_tokens, 10))


async def test_compaction_after_a_tool_step_summarizes_the_middle_and_keeps_the_transcript(scripted, kit, events):
    scripted.queue(tool_step(kit, 2000, 1), tool_step(kit, 2000, 2), reply("done", usage=kit.usage(300, 5)))
    model = kit.Summaries(scripted, summary="- read things")
    run = run_agent(
        scripted.model(), "the task", tools=[kit.make_tool()], stream_fn=model, compact_at_tokens=1000, compact_keep_recent=2
    )
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.compactions, len(model.summary_requests)) == ("completed", 1, 1)
    compacted = events.of("compacted")[0]
    assert (compacted.dropped_messages, compacted.kept_messages) == (2, 3)
    assert compacted.summary == "- read things" and compacted.summary_chars == len("- read things")
    assert compacted.first_kept_index == 3 and result.messages[3].role == "assistant"
    assert result.messages[3].tool_calls[0].arguments == {"value": 2}
    view = scripted.requests[2].context.messages
    assert [m.role for m in view] == ["user", "user", "assistant", "tool_result"]
    assert view[0].content == "the task" and view[1].content.startswith(SUMMARY_OPEN)
    assert "- read things" in view[1].content
    assert len(result.messages) == 6  # nothing dropped from the transcript
    order = [e.type for e in events.events if e.type in ("compacted", "step_finish")]
    assert order == ["step_finish", "compacted", "step_finish", "step_finish"]


async def test_the_summary_request_asks_for_what_the_spec_lists_and_is_charged(scripted, kit, events):
    scripted.queue(tool_step(kit, 2000, 1), tool_step(kit, 2000, 2), reply("done"))
    model = kit.Summaries(scripted)
    run = run_agent(
        scripted.model(),
        "the task",
        tools=[kit.make_tool()],
        stream_fn=model,
        compact_at_tokens=1000,
        compact_keep_recent=2,
        rates={"input": 1_000_000, "output": 0},
    )
    run.add_listener(events)
    await run.result()
    prompt = model.summary_requests[0].messages[0].content
    for needed in ("verbatim", "Decisions", "Files and variables", "Commands and outcomes", "Open items", "the task", "echo:1"):
        assert needed in prompt
    second_step = events.of("step_finish")[1]
    assert second_step.step_usage.input_tokens == 2000 + 50  # the step's request plus the summary
    assert second_step.step_usage.spend_usd == pytest.approx(2050)


async def test_a_failed_summary_falls_back_to_truncation(scripted, kit, events):
    scripted.queue(tool_step(kit, 2000, 1), tool_step(kit, 2000, 2), reply("done"))
    run = run_agent(
        scripted.model(),
        "the task",
        tools=[kit.make_tool()],
        stream_fn=kit.Summaries(scripted, fail=True),
        compact_at_tokens=1000,
        compact_keep_recent=2,
    )
    run.add_listener(events)
    result = await run.result()
    assert result.reason == "completed"
    assert events.of("compacted")[0].summary.startswith('[assistant] called echo({"value": 1})')


async def test_truncate_mode_makes_no_model_request(scripted, kit, events):
    scripted.queue(tool_step(kit, 2000, 1), tool_step(kit, 2000, 2), reply("done"))
    model = kit.Summaries(scripted)
    run = run_agent(
        scripted.model(),
        "the task",
        tools=[kit.make_tool()],
        stream_fn=model,
        compact_at_tokens=1000,
        compact_keep_recent=2,
        compaction="truncate",
    )
    run.add_listener(events)
    result = await run.result()
    assert result.compactions == 1 and model.summary_requests == []
    assert "[tool_result] echo:1" in events.of("compacted")[0].summary


async def test_off_never_compacts(scripted, kit, events):
    scripted.queue(*[tool_step(kit, 2000, i) for i in range(4)], reply("done"))
    run = run_agent(
        scripted.model(),
        "the task",
        tools=[kit.make_tool()],
        stream_fn=scripted,
        compact_at_tokens=1000,
        compact_keep_recent=2,
        compaction="off",
    )
    run.add_listener(events)
    result = await run.result()
    assert (result.compactions, events.of("compacted")) == (0, [])


async def test_the_trigger_reads_the_latest_request_not_cumulative_usage(scripted, kit):
    scripted.queue(*[tool_step(kit, 5000, i) for i in range(6)], reply("done"))
    result = await run_agent(
        scripted.model(), "the task", tools=[kit.make_tool()], stream_fn=scripted, compact_at_tokens=20_000, compact_keep_recent=2
    ).result()
    assert result.usage.input_tokens >= 30_000 and result.compactions == 0


async def test_cached_prefix_counts_toward_the_trigger(scripted, kit):
    cached = ScriptedResponse(content=[call("echo")], usage=kit.usage(input=10, output=5, cache_read=5000))
    scripted.queue(tool_step(kit, 100), cached, reply("done"))
    result = await run_agent(
        scripted.model(),
        "the task",
        tools=[kit.make_tool()],
        stream_fn=kit.Summaries(scripted),
        compact_at_tokens=1000,
        compact_keep_recent=2,
    ).result()
    assert result.compactions == 1


async def test_no_compaction_after_a_final_answer(scripted, kit):
    scripted.queue(tool_step(kit, 100, 1), tool_step(kit, 100, 2), reply("done", usage=kit.usage(5000, 5)))
    result = await run_agent(
        scripted.model(), "the task", tools=[kit.make_tool()], stream_fn=scripted, compact_at_tokens=1000, compact_keep_recent=2
    ).result()
    assert (result.reason, result.compactions) == ("completed", 0)


async def test_nothing_to_compact_emits_no_event(scripted, kit, events):
    scripted.queue(tool_step(kit, 2000, 1), reply("done"))
    run = run_agent(
        scripted.model(),
        "the task",
        tools=[kit.make_tool()],
        stream_fn=kit.Summaries(scripted),
        compact_at_tokens=1000,
        compact_keep_recent=8,
    )
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.compactions, events.of("compacted")) == ("completed", 0, [])


async def test_a_second_compaction_keeps_the_first_message_and_folds_the_old_summary(scripted, kit, events):
    scripted.queue(*[tool_step(kit, 2000, i) for i in range(4)], reply("done"))
    model = kit.Summaries(scripted)
    run = run_agent(
        scripted.model(), "the task", tools=[kit.make_tool()], stream_fn=model, compact_at_tokens=1000, compact_keep_recent=2
    )
    run.add_listener(events)
    result = await run.result()
    assert result.compactions == 3
    last_view = scripted.requests[-1].context.messages
    assert last_view[0].content == "the task" and last_view[1].content.startswith(SUMMARY_OPEN)
    assert "<compacted-history>" in model.summary_requests[-1].messages[0].content
    indexes = [e.first_kept_index for e in events.of("compacted")]
    assert indexes == [3, 5, 7]
    assert all(result.messages[i].role == "assistant" for i in indexes)


async def test_interrupt_during_the_summary_request_aborts_without_compacting(scripted, kit, events):
    from jupyter_agent import TextContent as Text

    scripted.queue(tool_step(kit, 2000, 1), tool_step(kit, 2000, 2), reply("never"))
    state = {}

    def stream_fn(model, context, options=None, metadata=None):
        if kit.is_summary_request(context):
            state["run"].interrupt()
            from jupyter_agent.testing.scripted import ScriptedModel

            return ScriptedModel([ScriptedResponse(content=[Text(text="slow")], hang=True)])(model, context, options, metadata)
        return scripted(model, context, options, metadata)

    run = run_agent(
        scripted.model(), "the task", tools=[kit.make_tool()], stream_fn=stream_fn, compact_at_tokens=1000, compact_keep_recent=2
    )
    state["run"] = run
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.compactions, result.steps) == ("aborted", 0, 2)
    assert events.of("compacted") == [] and events.types[-2:] == ["step_finish", "finish"]
