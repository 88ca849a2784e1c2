"""The plan's step-context section, and the plan surviving compaction through it."""

import pytest
from pydantic import BaseModel

from jupyter_agent import AgentTool, Usage
from jupyter_agent.features.plan.prompt import plan_step_section
from jupyter_agent.features.plan.state import PlanState, render_plan_text
from jupyter_agent.features.plan.tool import plan_tool
from jupyter_agent.messages import user_text
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, reply, tool_calls
from jupyter_agent.tools.step_context import step_context_hook

pytestmark = pytest.mark.anyio


def test_the_section_is_empty_without_a_plan_and_ends_with_the_checklist():
    state = PlanState()
    assert plan_step_section(state) == ""
    state.replace([{"text": "Load data", "status": "done"}, {"text": "Fit *model*", "status": "in_progress"}, {"text": "Plot"}])
    section = plan_step_section(state)
    assert section.startswith("## Current task plan") and section.endswith(render_plan_text(state))


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
    scripted = ScriptedModel(
        [
            ScriptedResponse(
                content=tool_calls(
                    call("plan", {"items": [{"text": "Load", "status": "in_progress"}, {"text": "Plot"}]})
                ).content,
                usage=big,
            ),
            ScriptedResponse(
                content=tool_calls(
                    call("plan", {"updates": [{"id": "1", "status": "done"}, {"id": "2", "status": "in_progress"}]})
                ).content,
                usage=big,
            ),
            ScriptedResponse(content=tool_calls(echo).content, usage=big),
            reply("all done"),
        ]
    )
    prepare_step = step_context_hook([lambda: plan_step_section(state)])
    run = run_agent(
        scripted.model(),
        "Load and plot",
        system="You analyse data.",
        tools=[plan_tool(state), echo_tool()],
        stream_fn=scripted,
        compaction="truncate",
        compact_at_tokens=500,
        compact_keep_recent=2,
        prepare_step=prepare_step,
    )
    result = await run.result()
    assert result.compactions >= 1 and result.reason == "completed"
    first, last = scripted.requests[0].context, scripted.requests[-1].context
    assert first.step_context is None  # no plan yet: nothing added
    assert {request.context.system_prompt for request in scripted.requests} == {"You analyse data."}
    assert last.step_context.startswith("## Current task plan")
    assert last.step_context.endswith("[x] 1. Load\n[>] 2. Plot")
    # The compaction dropped the tool results that showed the plan's first two versions.
    assert "<compacted-history>" in user_text(last.messages[1])
    assert [m.tool_name for m in last.messages if m.role == "tool_result"] == ["echo"]
