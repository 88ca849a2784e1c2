from jupyter_agent.features.delegation.view import ChildCards
from jupyter_agent.notebook.panel.nodes import Accordion
from jupyter_agent.notebook.panel.shared import Shared


def make(placed):
    rendered = []
    cards = ChildCards(
        shared=Shared(),
        clock=lambda: 0.0,
        flush=lambda: [s.render() for s in cards.streams()],
        poke=lambda: rendered.append(1),
        place=placed.append,
    )
    return cards, rendered


def test_a_child_card_follows_its_sub_agent_from_queue_to_finish(kit):
    placed = []
    cards, pokes = make(placed)
    ev = kit.event
    cards.handle("child-1", ev("child_queued", child_id="child-1", task="Profile the columns of df", index=0))
    card = cards.cards["child-1"]
    assert placed == [card.widget] and isinstance(card.widget, Accordion)
    assert card.title == "◌ sub-agent 1: Profile the columns of df — waiting for a slot" and card.expanded
    cards.handle("child-1", ev("child_start", child_id="child-1", max_steps=5, max_spend_usd=None))
    cards.handle("child-1", ev("step_start", step=1))
    cards.handle("child-1", ev("text_delta", delta="Looking at **df**"))
    stream = card.text
    assert pokes and cards.streams() == [stream] and stream.pieces == []  # rendered by the coalescer
    cards.handle("child-1", ev("tool_call", tool_call_id="k1", name="inspect", args={"name": "df"}))
    assert card.text is None and "<strong>df</strong>" in stream.pieces[0].value  # flushed, then closed
    cards.handle("child-1", ev("tool_result", tool_call_id="k1", name="inspect", content=[kit.text("3 columns")], is_error=False))
    assert card.cards["k1"].finished
    assert card.title.endswith("— step 1")
    cards.handle("child-1", ev("finish", reason="completed", text="3 columns", usage=None))
    assert card.title == "✓ sub-agent 1: Profile the columns of df — done · 1 step" and not card.expanded


def test_a_refused_child_says_why_and_long_tasks_are_cut_in_the_title(kit):
    placed = []
    cards, _ = make(placed)
    task = "Search the repository for the loader " * 5
    cards.handle("child-2", kit.event("child_queued", child_id="child-2", task=task, index=1))
    cards.handle("child-2", kit.event("finish", reason="refused", text="No steps left for a sub-agent", usage=None))
    card = cards.cards["child-2"]
    assert card.title.startswith("■ sub-agent 1: Search the repository") and card.title.endswith("— not started")
    assert "…" in card.title and len(card.title) < 110
