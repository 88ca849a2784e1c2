"""The task plan's state: PlanState's changes, listeners, JSON form and text renderings."""

import logging

import pytest

from jupyter_agent.features.plan.state import MAX_ITEMS, PlanError, PlanItem, PlanState, plan_markdown, render_plan_text


def statuses(state):
    return [(item.id, item.status) for item in state.items]


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
        PlanState.from_json(
            {"items": [{"id": "1", "text": "a", "status": "in_progress"}, {"id": "2", "text": "b", "status": "in_progress"}]}
        )


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


def test_renderings():
    state = PlanState()
    assert render_plan_text(state) == "No plan yet."
    assert plan_markdown(state) == ""
    state.replace([{"text": "Load data", "status": "done"}, {"text": "Fit *model*", "status": "in_progress"}, {"text": "Plot"}])
    assert render_plan_text(state) == "Plan (1/3 done):\n[x] 1. Load data\n[>] 2. Fit *model*\n[ ] 3. Plot"
    assert plan_markdown(state) == "- [x] ~~Load data~~\n- [ ] **Fit \\*model\\*** *(in progress)*\n- [ ] Plot"
