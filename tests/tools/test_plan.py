"""The task plan: PlanState, the plan tool, rendering, and the plan surviving compaction."""

import logging

import pytest

from pydantic import BaseModel

from jupyter_agent import AbortController, AgentTool, ToolCall, Usage
from jupyter_agent.messages import user_text
from jupyter_agent.loop.execute_tool import execute_tool
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, reply, tool_calls
from jupyter_agent.tools.plan import (
    MAX_ITEMS,
    PlanError,
    PlanItem,
    PlanState,
    plan_markdown,
    plan_system_section,
    plan_tool,
    render_plan_text,
)
from jupyter_agent.tools.system_sections import system_sections_hook

pytestmark = pytest.mark.anyio


async def use(state, **arguments):
    tool = plan_tool(state)
    return await execute_tool(ToolCall(id="c", name="plan", arguments=arguments), {"plan": tool}, AbortController().signal)


def statuses(state):
    return [(item.id, item.status) for item in state.items]


# -- PlanState ---------------------------------------------------------------------------------


def test_replace_numbers_items_without_ids_and_normalizes_text():
    state = PlanState()
    state.replace([{"text": "Load  sales.csv\n"}, {"id": "plot", "text": "Plot it", "status": "in_progress"}])
    assert state.items == [PlanItem("1", "Load sales.csv", "pending"), PlanItem("plot", "Plot it", "in_progress")]
    assert state.in_progress == PlanItem("plot", "Plot it", "in_progress")


def test_update_patches_by_id_all_or_nothing():
    state = PlanState()
    state.replace([{"text": "a", "status": "in_progress"}, {"text": "b"}])
    state.update([{"id": "1", "status": "done"}, {"id": "2", "status": "in_progress"}])
    assert statuses(state) == [("1", "done"), ("2", "in_progress")]
    with pytest.raises(PlanError, match="No plan item with id '9'. Item ids: 1, 2"):
        state.update([{"id": "1", "status": "pending"}, {"id": "9", "status": "done"}])
    assert statuses(state) == [("1", "done"), ("2", "in_progress")]


def test_a_second_item_in_progress_is_refused_and_nothing_changes():
    state = PlanState()
    state.replace([{"text": "load", "status": "in_progress"}, {"text": "plot"}])
    with pytest.raises(PlanError) as refused:
        state.update([{"id": "2", "status": "in_progress"}])
    assert str(refused.value).startswith("Only one item can be in progress at a time: 1 ('load') and 2 ('plot')")
    assert statuses(state) == [("1", "in_progress"), ("2", "pending")]
    with pytest.raises(PlanError, match="Only one item can be in progress"):
        state.replace([{"text": "x", "status": "in_progress"}, {"text": "y", "status": "in_progress"}])


@pytest.mark.parametrize(
    "items, message",
    [
        ([{"text": "  "}], "Plan item 1 has no text."),
        ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], "Two plan items have the id 'a'"),
        ([{"text": "x", "status": "started"}], "Plan item 1 has status 'started'"),
        ([{"text": "x" * 201}], "Plan item 1 is 201 characters"),
        ([{"text": f"step {n}"} for n in range(MAX_ITEMS + 1)], f"A plan has at most {MAX_ITEMS} items"),
    ],
)
def test_invalid_plans_are_refused_with_a_readable_reason(items, message):
    state = PlanState()
    with pytest.raises(PlanError, match=message.replace("(", r"\(").replace(")", r"\)")):
        state.replace(items)
    assert state.items == []


def test_json_round_trip_and_bad_documents():
    state = PlanState()
    state.replace([{"text": "a", "status": "done"}, {"text": "b", "status": "in_progress"}, {"text": "c"}])
    copy = PlanState.from_json(state.to_json())
    assert copy.items == state.items
    with pytest.raises(PlanError, match="an object with an 'items' list"):
        PlanState.from_json({"steps": []})
    with pytest.raises(PlanError, match="Only one item can be in progress"):
        PlanState.from_json({"items": [{"id": "1", "text": "a", "status": "in_progress"}, {"id": "2", "text": "b", "status": "in_progress"}]})


def test_listeners_hear_accepted_changes_only_and_a_broken_one_is_contained(caplog):
    state = PlanState()
    heard = []
    stop = state.on_change(lambda s: heard.append(statuses(s)))
    state.on_change(lambda s: 1 / 0)
    with caplog.at_level(logging.ERROR):
        state.replace([{"text": "a"}])
    with pytest.raises(PlanError):
        state.update([{"id": "nope"}])
    stop()
    state.clear()
    assert heard == [[("1", "pending")]]
    assert state.items == [] and "plan on_change listener failed" in caplog.text


# -- rendering ---------------------------------------------------------------------------------


def test_renderings():
    state = PlanState()
    assert render_plan_text(state) == "No plan yet."
    assert plan_system_section(state) == "" and plan_markdown(state) == ""
    state.replace([{"text": "Load data", "status": "done"}, {"text": "Fit *model*", "status": "in_progress"}, {"text": "Plot"}])
    assert render_plan_text(state) == "Plan (1/3 done):\n[x] 1. Load data\n[>] 2. Fit *model*\n[ ] 3. Plot"
    assert plan_markdown(state) == "- [x] ~~Load data~~\n- [ ] **Fit \\*model\\*** *(in progress)*\n- [ ] Plot"
    section = plan_system_section(state)
    assert section.startswith("## Current task plan") and section.endswith(render_plan_text(state))


# -- the tool ----------------------------------------------------------------------------------


async def test_the_tool_sets_and_updates_the_plan_and_shows_the_checklist():
    state = PlanState()
    result = await use(state, items=[{"text": "Load", "status": "in_progress"}, {"text": "Plot"}])
    assert not result.is_error and result.text == "Plan (0/2 done):\n[>] 1. Load\n[ ] 2. Plot"
    assert result.details == state.to_json()
    result = await use(state, updates=[{"id": "1", "status": "done"}, {"id": "2", "status": "in_progress"}])
    assert result.text == "Plan (1/2 done):\n[x] 1. Load\n[>] 2. Plot"


async def test_two_in_progress_is_an_error_result_showing_the_unchanged_plan():
    state = PlanState()
    await use(state, items=[{"text": "Load", "status": "in_progress"}, {"text": "Plot"}])
    result = await use(state, updates=[{"id": "2", "status": "in_progress"}])
    assert result.is_error
    assert result.text.startswith("Only one item can be in progress at a time")
    assert "The plan was not changed." in result.text and result.text.endswith("[>] 1. Load\n[ ] 2. Plot")


async def test_the_tool_needs_exactly_one_of_items_and_updates():
    for arguments in ({}, {"items": [{"text": "a"}], "updates": [{"id": "1"}]}):
        result = await use(PlanState(), **arguments)
        assert result.is_error and "give either items (the whole checklist) or updates" in result.text


def test_the_plan_tool_is_never_gated():
    assert plan_tool(PlanState()).read_only


# -- surviving compaction ----------------------------------------------------------------------


def echo_tool():
    class EchoArgs(BaseModel):
        value: int = 0

    async def execute(args, signal):
        return f"echo:{args.value}"

    return AgentTool(name="echo", description="echoes", parameters=EchoArgs, execute=execute, read_only=True)


async def test_after_a_compaction_the_next_request_still_carries_the_current_plan():
    state = PlanState()
    big = Usage(input=1_000, output=10, total_tokens=1_010)
    echo = call("echo", {"value": 1})
    scripted = ScriptedModel([
        ScriptedResponse(content=tool_calls(call("plan", {"items": [{"text": "Load", "status": "in_progress"}, {"text": "Plot"}]})).content, usage=big),
        ScriptedResponse(content=tool_calls(call("plan", {"updates": [{"id": "1", "status": "done"}, {"id": "2", "status": "in_progress"}]})).content, usage=big),
        ScriptedResponse(content=tool_calls(echo).content, usage=big),
        reply("all done"),
    ])
    prepare_step = system_sections_hook("You analyse data.", [lambda: plan_system_section(state)])
    run = run_agent(
        scripted.model(), "Load and plot", system="You analyse data.", tools=[plan_tool(state), echo_tool()], stream_fn=scripted,
        compaction="truncate", compact_at_tokens=500, compact_keep_recent=2, prepare_step=prepare_step,
    )
    result = await run.result()
    assert result.compactions >= 1 and result.reason == "completed"
    first, last = scripted.requests[0].context, scripted.requests[-1].context
    assert first.system_prompt == "You analyse data."  # no plan yet: nothing added
    assert last.system_prompt.startswith("You analyse data.\n\n## Current task plan")
    assert last.system_prompt.endswith("[x] 1. Load\n[>] 2. Plot")
    # The compaction dropped the tool results that showed the plan's first two versions.
    assert "<compacted-history>" in user_text(last.messages[1])
    assert [m.tool_name for m in last.messages if m.role == "tool_result"] == ["echo"]
