"""The plan file beside a session: saved on every change, loaded on resume."""

import json
import logging

import pytest

from jupyter_agent.features.plan.file import PlanFile, plan_path, recorded_plan
from jupyter_agent.features.plan.prompt import plan_step_section
from jupyter_agent.features.plan.tool import plan_tool
from jupyter_agent.messages import TextContent, ToolResultMessage, UserMessage
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls
from jupyter_agent.tools.step_context import step_context_hook

pytestmark = pytest.mark.anyio


def test_the_plan_lives_beside_the_session_file(session_file):
    assert plan_path(session_file) == session_file.with_name("main.plan.json")
    assert PlanFile(session_file).path == plan_path(session_file)


def test_no_file_is_an_empty_plan_and_nothing_is_written(session_file):
    state = PlanFile(session_file).state()
    assert state.items == [] and not plan_path(session_file).exists()


def test_every_change_is_saved_and_loads_back(session_file):
    state = PlanFile(session_file).state()
    state.replace([{"text": "Load", "status": "in_progress"}, {"text": "Plot"}])
    saved = json.loads(plan_path(session_file).read_text())
    assert saved == {
        "items": [{"id": "1", "text": "Load", "status": "in_progress"}, {"id": "2", "text": "Plot", "status": "pending"}]
    }
    state.update([{"id": "1", "status": "done"}])
    assert PlanFile(session_file).load().items == state.items
    assert not list(session_file.parent.glob("*.tmp"))


def test_a_damaged_plan_file_resumes_with_an_empty_plan(session_file, caplog):
    path = plan_path(session_file)
    path.parent.mkdir(parents=True)
    path.write_text('{"items": [{"id": "1", "text": "a", "sta')
    with caplog.at_level(logging.WARNING):
        assert PlanFile(session_file).load().items == []
    assert "ignoring unreadable plan file" in caplog.text


def test_a_forked_session_gets_a_copy(session_file):
    state = PlanFile(session_file).state()
    state.replace([{"text": "Load"}])
    other = session_file.with_name("branch.jsonl")
    PlanFile(session_file).copy_to(other)
    state.replace([{"text": "Changed"}])
    assert [item.text for item in PlanFile(other).load().items] == ["Load"]


async def test_plan_updates_of_a_run_survive_a_restart(session_file):
    state = PlanFile(session_file).state()
    scripted = ScriptedModel(
        [
            tool_calls(call("plan", {"items": [{"text": "Load", "status": "done"}, {"text": "Plot", "status": "in_progress"}]})),
            reply("paused"),
        ]
    )
    await run_agent(scripted.model(), "go", tools=[plan_tool(state)], stream_fn=scripted).result()

    # A new kernel: the plan is read from disk and reaches the first request of the next turn.
    resumed = PlanFile(session_file).state()
    scripted = ScriptedModel([reply("continuing")])
    hook = step_context_hook([lambda: plan_step_section(resumed)])
    await run_agent(
        scripted.model(), "continue", system="base", tools=[plan_tool(resumed)], stream_fn=scripted, prepare_step=hook
    ).result()
    assert scripted.requests[0].context.step_context.endswith("[x] 1. Load\n[>] 2. Plot")


def plan_result(text, is_error=False, details=None):
    plan = {"items": [{"id": "1", "text": text, "status": "pending"}]}
    return ToolResultMessage(
        tool_call_id=f"call-{text}",
        tool_name="plan",
        content=[TextContent(text=text)],
        details=plan if details is None else details,
        is_error=is_error,
    )


def test_the_branchs_last_accepted_plan_call_decides():
    newest_first = [plan_result("Refused", is_error=True), plan_result("Load"), plan_result("Older"), UserMessage(content="go")]
    assert [item.text for item in recorded_plan(newest_first).items] == ["Load"]
    # A record holding no plan (edited by hand) does not hide the call before it.
    assert [item.text for item in recorded_plan([plan_result("x", details={"no": 1}), plan_result("Load")]).items] == ["Load"]
    assert recorded_plan([UserMessage(content="go")]) is None


def test_the_plan_is_found_in_a_stores_tool_results_newest_first(tmp_path):
    from jupyter_agent.session import SessionStore

    with SessionStore(tmp_path / "s.jsonl") as store:
        other = ToolResultMessage(tool_call_id="c9", tool_name="python", content=[TextContent(text="4")])
        for message in (UserMessage(content="go"), plan_result("Load"), UserMessage(content="more"), plan_result("Plot"), other):
            store.append(message)
        results = store.tool_results_newest_first("plan")
        assert [message.content[0].text for message in results] == ["Plot", "Load"]
        assert [message.tool_name for message in store.tool_results_newest_first("python")] == ["python"]
        assert [item.text for item in recorded_plan(store.tool_results_newest_first("plan")).items] == ["Plot"]


def test_a_redone_branch_rolls_the_plan_file_back(session_file):
    PlanFile(session_file).state().replace([{"text": "Fit a model"}])  # made by a turn a re-run replaced
    state = PlanFile(session_file).state([plan_result("Load"), UserMessage(content="go")])
    assert [item.text for item in state.items] == ["Load"]
    assert [item.text for item in PlanFile(session_file).load().items] == ["Load"]  # saved
    # A branch whose turns made no plan has none.
    assert PlanFile(session_file).state([UserMessage(content="go")]).items == []
    assert PlanFile(session_file).load().items == []
