"""Plan, memory and delegation in notebook turns (runner + scripted models, no kernel)."""

import asyncio
import json

import pytest
from turn_helpers import RecordingRenderer, make_turn

from jupyter_agent.features.memory.extraction import EXTRACTION_SYSTEM_PROMPT
from jupyter_agent.features.memory.feature import SAVING_MEMORY
from jupyter_agent.notebook import runner
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, reply, tool_calls
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio

FACT = {
    "memories": [
        {
            "name": "date-format",
            "summary": "sales.csv dates are day-first",
            "content": "Parse sales.csv with dayfirst=True: its dates are dd/mm/yyyy.",
        }
    ]
}


def tool_names(request):
    return [tool.name for tool in request.context.tools]


async def test_plan_updates_are_shown_saved_and_resent_in_the_next_turn(manager, scripted):
    plan = {"items": [{"text": "Load the data", "status": "in_progress"}, {"text": "Plot revenue"}]}
    model = ScriptedModel([tool_calls(call("plan", plan)), reply("Loaded."), reply("Continuing.")])
    choice = scripted("planner", model)
    session = manager.get()
    first = RecordingRenderer()
    await runner.start(make_turn(session, first, choice))
    assert first.plans == ["- [ ] **Load the data** *(in progress)*\n- [ ] Plot revenue"]
    assert "plan" in tool_names(model.requests[0])
    assert session.path.with_name("main.plan.json").exists()
    # The next turn shows the unfinished plan at once and sends it in every step context.
    second = RecordingRenderer()
    await runner.start(make_turn(session, second, choice, prompt="go on"))
    assert second.plans == first.plans
    assert "## Current task plan" in model.requests[2].context.step_context
    assert "[>] 1. Load the data" in model.requests[2].context.step_context


async def test_a_plan_changed_mid_turn_and_the_memory_index_travel_after_the_history_never_in_it(manager, scripted):
    plan = {"items": [{"text": "Load", "status": "in_progress"}, {"text": "Plot"}]}
    ticked = {"updates": [{"id": "1", "status": "done"}, {"id": "2", "status": "in_progress"}]}
    nothing = reply('{"memories": []}')
    model = ScriptedModel([tool_calls(call("plan", plan)), tool_calls(call("plan", ticked)), reply("Planned."), nothing])
    model.queue(reply("Again."), nothing)
    choice = scripted("stepping", model)
    session = manager.get()
    renderers = [RecordingRenderer(), RecordingRenderer()]
    await runner.start(make_turn(session, renderers[0], choice, memory=True))
    await runner.start(make_turn(session, renderers[1], choice, prompt="go on", memory=True))
    conversation = [request.context for request in model.requests if request.context.system_prompt != EXTRACTION_SYSTEM_PROMPT]
    assert len(conversation) == 4 and len(model.requests) == 6  # two memory extractions
    # The system prompt is byte-identical in every step and turn, while the plan changed twice.
    assert {context.system_prompt for context in conversation} == {"system"}
    contexts = [context.step_context for context in conversation]
    assert "## Current task plan" not in contexts[0] and contexts[0].startswith("## Memory\n")
    assert "[>] 1. Load\n[ ] 2. Plot" in contexts[1] and "[x] 1. Load\n[>] 2. Plot" in contexts[2]
    assert contexts[3] == contexts[2] and all("(no notes saved yet)" in context for context in contexts)
    # Neither the history, the session file nor the panel's messages hold it: it was said by no one.
    shown = [event.message for renderer in renderers for event in renderer.events if event.type == "message"]
    assert [message.role for message in shown if message.role == "user"] == ["user", "user"]
    for text in ("<step-context>", "## Current task plan", "## Memory", "no notes saved yet"):
        assert text not in str([message.model_dump() for message in shown])
        assert text not in str([message.model_dump() for message in session.store.messages()])
        assert text not in session.path.read_text()
    assert [len(context.messages) for context in conversation] == [1, 3, 5, 7]


async def test_two_items_in_progress_are_refused_with_a_readable_error(manager, scripted):
    both = {"items": [{"text": "a", "status": "in_progress"}, {"text": "b", "status": "in_progress"}]}
    model = ScriptedModel([tool_calls(call("plan", both)), reply("ok")])
    renderer = RecordingRenderer()
    await runner.start(make_turn(manager.get(), renderer, scripted("refused", model)))
    result = model.requests[1].context.messages[-1]
    assert result.is_error and "Only one item can be in progress at a time" in result.text
    assert renderer.plans == []


async def test_no_tools_means_no_plan_tool_either(manager, scripted):
    model = ScriptedModel([reply("hi")])
    turn = make_turn(manager.get(), RecordingRenderer(), scripted("bare", model), tools_setting=("none",))
    await runner.start(turn)
    assert tool_names(model.requests[0]) == []


async def test_memory_is_off_by_default_and_writes_nothing(manager, scripted):
    model = ScriptedModel([reply("Dates are day-first, noted.")])
    renderer = RecordingRenderer()
    await runner.start(make_turn(manager.get(), renderer, scripted("forgetful", model)))
    assert len(model.requests) == 1  # no extraction request
    assert "memory" not in tool_names(model.requests[0])
    assert not (manager.folder / "memory").exists()
    assert renderer.memory_changes == []


async def test_memory_extraction_saves_a_fact_that_the_next_turn_sees(manager, scripted):
    model = ScriptedModel([reply("Dates are day-first, noted."), reply(json.dumps(FACT)), reply("Using dayfirst.")])
    choice = scripted("remembering", model)
    session = manager.get()
    renderer = RecordingRenderer()
    await runner.start(make_turn(session, renderer, choice, memory=True))
    assert len(model.requests) == 2  # the turn, then the extraction
    assert "<turn>" in model.requests[1].context.messages[0].content
    assert [(c.kind, c.name) for c in renderer.memory_changes] == [("created", "date-format")]
    assert SAVING_MEMORY in renderer.notes and renderer.notes[-1] == ""
    assert (manager.folder / "memory" / "date-format.md").exists()
    # The extraction request is charged to the session but is not a step of the conversation.
    assert session.store.usage().steps == 1
    assert [r.purpose for r in session.store.records() if r.kind == "usage"] == ["step", "memory"]
    later = RecordingRenderer()
    await runner.start(make_turn(session, later, choice, prompt="load it", memory=True))
    step_context = model.requests[2].context.step_context
    assert "## Memory" in step_context and "date-format: sales.csv dates are day-first" in step_context
    assert "## Memory" not in model.requests[2].context.system_prompt
    assert "memory" in tool_names(model.requests[2])
    assert renderer.memory_changes[0].undo() and not (manager.folder / "memory" / "date-format.md").exists()


async def test_stop_during_extraction_abandons_it(manager, scripted):
    model = ScriptedModel([reply("Answer."), ScriptedResponse(hang=True)])
    renderer = RecordingRenderer()
    turn = make_turn(manager.get(), renderer, scripted("hanging-extraction", model), memory=True)
    task = runner.start(turn)
    await wait_until(lambda: len(model.requests) == 2, what="the extraction request")
    turn.stop()
    await asyncio.wait_for(task, 5)
    assert turn.result.reason == "completed" and renderer.memory_changes == []
    assert renderer.errors == []


async def test_delegation_is_off_by_default_and_children_report_to_the_renderer(manager, scripted):
    model = ScriptedModel([reply("no delegation here")])
    await runner.start(make_turn(manager.get(), RecordingRenderer(), scripted("solo", model)))
    assert "delegate" not in tool_names(model.requests[0])

    model = ScriptedModel(
        [
            tool_calls(call("delegate", {"tasks": ["Count the rows of sales.csv"]})),
            reply("It has 42 rows."),
            reply("The child says 42."),
        ]
    )
    renderer = RecordingRenderer()
    turn = make_turn(manager.get("team"), renderer, scripted("parent", model), delegate=True)
    await runner.start(turn)
    child_request = model.requests[1]
    assert [m.content for m in child_request.context.messages] == ["Count the rows of sales.csv"]
    assert [kind for _, kind in renderer.child_events][:2] == ["child_queued", "child_start"]
    assert renderer.child_events[-1] == ("child-1", "finish")
    assert model.requests[2].context.messages[-1].text == "It has 42 rows."
    assert turn.result.reason == "completed"
    # The child's own transcript is kept in a session file beside the parent's.
    from jupyter_agent.session import SessionStore

    [child_file] = (manager.get("team").path.parent / "team.children").glob("*-child-1.jsonl")
    with SessionStore(child_file, read_only=True) as child:
        assert [(m.role, m.content if m.role == "user" else m.text) for m in child.history()] == [
            ("user", "Count the rows of sales.csv"),
            ("assistant", "It has 42 rows."),
        ]
