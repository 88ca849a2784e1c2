"""The plan tool: it sets and updates the plan and refuses bad changes as tool errors."""

import pytest

from jupyter_agent import AbortController, ToolCall
from jupyter_agent.features.plan.state import PlanState
from jupyter_agent.features.plan.tool import plan_tool
from jupyter_agent.loop.execute_tool import execute_tool

pytestmark = pytest.mark.anyio


async def use(state, **arguments):
    tool = plan_tool(state)
    return await execute_tool(ToolCall(id="c", name="plan", arguments=arguments), {"plan": tool}, AbortController().signal)


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
