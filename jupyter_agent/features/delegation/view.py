"""How sub-agents are shown: in the panel, each a collapsible card nested under its ``delegate`` call.

Fed by ``ChildEvent``s: ``child_queued`` opens the card, ``child_start`` marks it running, then
the child's own run events (its text streams, its tool calls as cards) and exactly one
``finish``. A card is open while its sub-agent works and folds away when it ends. Its text is
rendered by the panel's coalescer like the parent's (see ``ChildCards.streams``). The static
rendering says in one line how each sub-agent ended; the terminal prints its progress indented.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from jupyter_agent.features.delegation.child import REFUSED
from jupyter_agent.features.delegation.feature import ChildEvent
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.nodes import Node
from jupyter_agent.notebook.panel.shared import Shared
from jupyter_agent.notebook.panel.status import finish_state
from jupyter_agent.notebook.panel.tool_card import ToolCard
from jupyter_agent.notebook.panel.transcript import MarkdownStream
from jupyter_agent.notebook.panel.visible import terminal_safe
from jupyter_agent.notebook.views import BaseView, FeatureViews, PanelSurface, StaticSurface, TextSurface
from jupyter_agent.runtime.events import FinishEvent, RunTextDeltaEvent

if TYPE_CHECKING:
    from jupyter_agent.features.delegation.child import ChildRunEvent
    from jupyter_agent.features.feature import FeatureEvent

DELEGATE_TOOL = "delegate"  # the call a sub-agent's card is nested under

# A title is one line: the task's start is enough to tell the sub-agents apart.
TASK_TITLE_CHARS = 70
_MARKS = {"queued": "◌", "running": "⋯", "done": "✓", "stopped": "■", "error": "✗"}


class ChildCard:
    def __init__(
        self,
        number: int,
        task: str,
        *,
        shared: Shared,
        clock: Callable[[], float],
        flush: Callable[[], None],
        poke: Callable[[], None],
    ) -> None:
        self.number = number
        self.task = task
        self.state = "queued"
        self.status = "waiting for a slot"
        self.step = 0
        self._shared, self._clock, self._flush, self._poke = shared, clock, flush, poke
        self._body = shared.vbox(
            [shared.html(f'<div class="ja-label">task</div>{escape(task)}', "ja-child-task")], "ja-child-body"
        )
        # Open while the sub-agent works, so its activity is visible as it happens.
        self.accordion = shared.accordion(self._body, self._title(), "ja-child", open=True)
        self.widget = self.accordion
        self.cards: dict[str, ToolCard] = {}
        self.text: MarkdownStream | None = None

    @property
    def title(self) -> str:
        return str(self.accordion.titles[0])

    @property
    def expanded(self) -> bool:
        return bool(self.accordion.selected_index == 0)

    def handle(self, event: ChildRunEvent) -> None:
        match event.type:
            case "child_start":
                self._set("running", "running")
            case "step_start":
                self._end_text()
                self.step = event.step
                self._set("running", f"step {self.step}")
            case "text_delta":
                self._on_text(event)
            case "tool_call":
                self._end_text()
                card = ToolCard(event.tool_call_id, event.name, event.args, clock=self._clock, shared=self._shared)
                self.cards[event.tool_call_id] = card
                self._append(card.widget)
            case "tool_result":
                finished = self.cards.get(event.tool_call_id)
                if finished is not None:
                    finished.finish(event.content, event.is_error)
            case "finish":
                self._on_finish(event)
            case "error":
                self._add_note(fmt.error_text(event.error), "ja-error-text")

    def _on_text(self, event: RunTextDeltaEvent) -> None:
        if self.text is None:
            self.text = MarkdownStream(css_class="ja-stream", shared=self._shared)
            self._append(self.text.widget)
        self.text.append(event.delta)
        self._poke()

    def _on_finish(self, event: FinishEvent) -> None:
        self._end_text()
        if event.reason == REFUSED:
            self._add_note(event.text or "not started", "ja-note")
            self._set("stopped", "not started")
        else:
            state, detail = finish_state(event.reason)
            steps = f"{self.step} step{'s' if self.step != 1 else ''}"
            self._set(state, f"{detail} · {steps}" if detail else f"{state} · {steps}")
        self.accordion.selected_index = None  # finished: fold away, the report is the tool's result

    def _add_note(self, text: str, css: str) -> None:
        self._append(self._shared.html(escape(text), css))

    def _append(self, node: Node) -> None:
        self._body.children = (*self._body.children, node)

    def _end_text(self) -> None:
        if self.text is not None:
            self._flush()
            self.text.close()
            self.text = None

    def _set(self, state: str, status: str) -> None:
        self.state, self.status = state, status
        title = self._title()
        if self.accordion.titles[0] != title:
            self.accordion.titles = (title,)

    def _title(self) -> str:
        task = " ".join(self.task.split())
        if len(task) > TASK_TITLE_CHARS:
            task = task[: TASK_TITLE_CHARS - 1] + "…"
        return f"{_MARKS.get(self.state, '⋯')} sub-agent {self.number}: {task} — {self.status}"


class ChildCards:
    """The sub-agents of one panel; ``place(widget)`` puts a new card under its delegate call."""

    def __init__(
        self,
        *,
        shared: Shared,
        clock: Callable[[], float],
        flush: Callable[[], None],
        poke: Callable[[], None],
        place: Callable[[Node], None],
    ) -> None:
        self._shared, self._clock, self._flush, self._poke, self._place = shared, clock, flush, poke, place
        self.cards: dict[str, ChildCard] = {}

    def handle(self, child_id: str, event: ChildRunEvent) -> None:
        card = self.cards.get(child_id)
        if card is None:
            task = (event.task if event.type == "child_queued" else "") or child_id  # another first event
            card = ChildCard(
                len(self.cards) + 1, task, shared=self._shared, clock=self._clock, flush=self._flush, poke=self._poke
            )
            self.cards[child_id] = card
            self._place(card.widget)
        card.handle(event)

    def streams(self) -> list[MarkdownStream]:
        return [card.text for card in self.cards.values() if card.text is not None]


class ChildPanelView(BaseView[PanelSurface]):
    def __init__(self, surface: PanelSurface) -> None:
        super().__init__(surface)
        self.children = ChildCards(
            shared=surface.shared,
            clock=surface.now,
            flush=surface.flush_text,
            poke=surface.poke,
            place=lambda node: surface.nest(DELEGATE_TOOL, node),
        )
        surface.stream_source(self.children.streams)

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, ChildEvent)
        try:
            self.children.handle(event.child_id, event.event)
        except Exception as exc:  # noqa: BLE001 - a display problem must not end the sub-agent
            self.surface.show_error(f"panel could not show a sub-agent's {event.event.type} event: {fmt.error_text(exc)}")


class ChildStaticView(BaseView[StaticSurface]):
    """One line per sub-agent when it ends; its report is the delegate tool's output."""

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, ChildEvent)
        if event.event.type != "finish":
            return
        state, detail = finish_state(event.event.reason)
        self.surface.note(f"{_name(event.child_id)} {state}{f' ({detail})' if detail else ''}")


class ChildTextView(BaseView[TextSurface]):
    """A sub-agent's progress as indented lines (its text is the delegate tool's result)."""

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, ChildEvent)
        name, child, surface = _name(event.child_id), event.event, self.surface
        match child.type:
            case "child_queued":
                surface.line(surface.dim(f"  ↳ {name}: {terminal_safe(' '.join(child.task.split()))[:100]}"))
            case "tool_call":
                surface.line(surface.dim(f"    {name} ▸ {child.name} {fmt.args_summary(child.args)}"))
            case "finish":
                state, detail = finish_state(child.reason)
                surface.line(surface.dim(f"    {name} {state}" + (f" ({detail})" if detail else "")))


def _name(child_id: str) -> str:
    return child_id.replace("child-", "sub-agent ")


VIEWS = FeatureViews(events=("child_event",), panel=ChildPanelView, static=ChildStaticView, text=ChildTextView)

__all__ = ["VIEWS", "ChildCard", "ChildCards", "ChildPanelView", "ChildStaticView", "ChildTextView"]
