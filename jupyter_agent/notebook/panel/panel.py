"""AgentPanel: the live view of one agent turn, fed by run events; one widget per turn.

A pure consumer: `handle(event)` turns each run event into changes of the panel's nodes (cheaply —
text is buffered and rendered by a coalescer that bounds its lag), `ask()` waits for an approval
click, and the buttons call the `on_*` hooks the integration installs. There is no agent logic here.
Every public method ends by sending what it changed (``PanelWidget.flush``): one message at most.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from jupyter_agent.features.delegation.view import ChildCards
from jupyter_agent.features.memory.view import MemoryView
from jupyter_agent.features.plan.view import PlanView
from jupyter_agent.loop.abort import was_cancelled
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.approval_bar import ApprovalBar
from jupyter_agent.notebook.panel.coalescer import Clock, Coalescer, LoopClock, TimerHandle
from jupyter_agent.notebook.panel.controls import Controls
from jupyter_agent.notebook.panel.dispatch import EventRouter
from jupyter_agent.notebook.panel.footer import Footer
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.nodes import Button, Node
from jupyter_agent.notebook.panel.panel_events import dispatch
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible
from jupyter_agent.notebook.panel.static_render import TranscriptRecorder
from jupyter_agent.notebook.panel.status import TERMINAL
from jupyter_agent.notebook.panel.tool_card import ToolCard
from jupyter_agent.notebook.panel.transcript import MarkdownStream
from jupyter_agent.notebook.panel.turn_widget import PanelWidget
from jupyter_agent.runtime.events import (
    RunEvent,
    RunTextDeltaEvent,
    RunThinkingDeltaEvent,
    StepFinishEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)

if TYPE_CHECKING:
    from jupyter_agent.features.memory.store import MemoryChange
    from jupyter_agent.features.plan.state import PlanState
    from jupyter_agent.notebook.renderer import ChildEvent
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

# Text is sent at most this long after it arrived, at any rate (with room for the loop's own delays
# under 100 ms): an update costs only the new text and ~90 bytes of envelope, ~13 updates a second.
MAX_LAG = 0.075
# Refresh the elapsed time in the footer at most this often while text streams.
FOOTER_TICK = 5.0


def _controls_hook(name: str) -> property:
    """A hook of the controls (Stop, Steer, Follow-up), settable on the panel."""
    return property(lambda self: getattr(self.controls, name), lambda self, hook: setattr(self.controls, name, hook))


class AgentPanel(EventRouter):
    """The live view of one `%%agent` turn; `widget` is what the cell displays."""

    def __init__(
        self, *, model_label: str, session: str, context_window: int | None = None, demo: bool = False, clock: Clock | None = None
    ) -> None:
        self._clock = clock or LoopClock()
        # What replaces the widgets when the turn ends (see ``finish``).
        self.record = TranscriptRecorder(model_label=model_label, session=session, context_window=context_window, demo=demo)
        self._last_note = ""
        self._shared = Shared()
        self._body = self._shared.vbox((), "ja-body")
        self.approval = ApprovalBar(self._shared)
        # Made on first use: most turns have no plan, no memory changes and no code to materialize.
        self.plan: PlanView | None = None
        self.memory: MemoryView | None = None
        self.materialize_button: Button | None = None
        self._error = self._shared.html("", "ja-error", HIDDEN)
        self._note = self._shared.html("", "ja-note", HIDDEN)
        self.controls = Controls(note=self.note, shared=self._shared)
        self.footer = Footer(
            model_label=model_label,
            session=session,
            context_window=context_window,
            demo=demo,
            clock=self._clock.now,
            shared=self._shared,
        )
        self.root = self._shared.vbox(self._sections(), "ja-panel", "ja-state-running")
        self._shared.document.set_root(self.root)
        self.widget = PanelWidget(self._shared.document)
        self.approval.changed = self.widget.flush
        self.widget.immediate.add(self.controls.stop_button.id)  # Stop must reach code that blocks the loop
        self._coalescer = Coalescer(self._render_streams, ready=lambda: False, max_interval=MAX_LAG, clock=self._clock)
        self._text: MarkdownStream | None = None
        self._thinking: MarkdownStream | None = None
        self._cards: dict[str, ToolCard] = {}
        self.children = ChildCards(
            shared=self._shared,
            clock=self._clock.now,
            flush=self._coalescer.flush,
            poke=self._coalescer.poke,
            place=self._place_child,
        )
        self._errors: list[str] = []
        self._footer_shown_at = self._clock.now()
        self._footer_timer: TimerHandle | None = None
        self.state = "running"

    # Hooks the integration installs; the buttons call them.
    on_stop = _controls_hook("on_stop")
    on_steer = _controls_hook("on_steer")
    on_follow_up = _controls_hook("on_follow_up")

    def handle(self, event: RunEvent) -> None:
        self.record.handle(event)
        super().handle(event)
        self.widget.flush()

    def static_bundles(self) -> list[dict[str, str]]:
        """The finished turn as notebook outputs (Markdown + HTML, images), for a saved notebook."""
        self.record.note(self._last_note)
        self.record.end(self.footer.summary())
        return self.record.document.bundles(summary=self.footer.summary(), state=self.footer.state)

    def finish(self) -> None:
        """Replaces the live panel by its static rendering and closes its widgets."""
        from jupyter_agent.notebook.panel.finish import finish_panel

        self.flush()
        finish_panel(self)

    def close(self) -> None:
        """Closes the widget and drops the hooks: nothing of the finished turn stays reachable from here."""
        self._coalescer.close()
        if self._footer_timer is not None:
            self._footer_timer.cancel()
            self._footer_timer = None
        self.widget.close()
        self.controls.on_stop = self.controls.on_steer = self.controls.on_follow_up = None

    @property
    def cards(self) -> list[ToolCard]:
        return list(self._cards.values())

    @property
    def items(self) -> list[Node]:
        """The nodes of the transcript, in order (text streams, thinking, cards, messages)."""
        return list(self._body.children)

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Show the approval bar; resolves to "once" | "tool" | "call" | "deny" on a click."""
        self._end_streams()
        self.widget.flush()
        try:
            return await self.approval.ask(request)
        finally:
            self.widget.flush()

    def set_state(self, state: str, detail: str = "") -> None:
        self.state = state
        self.footer.set_state(state, detail)
        self.root._dom_classes = ("ja-panel", f"ja-state-{self.footer.state}")  # never hidden
        if state in TERMINAL:
            self.flush()
            self.controls.set_enabled(False)
            if self._footer_timer is not None:
                self._footer_timer.cancel()
                self._footer_timer = None
        else:
            self.controls.set_enabled(True)
            self._keep_footer_ticking()
        self.footer.refresh()
        self.widget.flush()

    def _keep_footer_ticking(self) -> None:
        # While the model thinks or a tool runs no event arrives: the elapsed time must still move.
        if self._footer_timer is None:
            self._footer_timer = self._clock.call_later(FOOTER_TICK, self._footer_tick)

    def _footer_tick(self) -> None:
        self._footer_timer = None
        if self.footer.state in TERMINAL:
            return
        if self._clock.now() - self._footer_shown_at >= FOOTER_TICK:
            self._footer_shown_at = self._clock.now()
            self.footer.refresh()
            self.widget.flush()
        self._keep_footer_ticking()

    def live_output(self, text: str) -> None:
        """Output of the running ``python`` call, shown in its card at once.

        Called while that code blocks the event loop (from a helper thread, the only one then
        touching the panel), so nothing here may wait for the loop.
        """
        card = self._open_card("python")
        if card is not None:
            card.show_live(text)
        self.tick()
        self.widget.flush()

    def tick(self) -> None:
        """Moves the footer's clock when the loop cannot (agent-run code blocks it)."""
        if self.footer.state not in TERMINAL:
            self._footer_shown_at = self._clock.now()
            self.footer.refresh()

    def show_error(self, text: str) -> None:
        self.record.show_error(text)
        self._errors.append(text)
        shown = self._errors[-5:]  # why: a failing loop must not grow the box without bound
        self._error.value = "".join(f"<b>Error</b><pre>{escape(fmt.truncate(text, 4000))}</pre>" for text in shown)
        set_visible(self._error, True)
        self.widget.flush()

    def note(self, text: str) -> None:
        self._last_note = text  # one note at a time, as shown; the last one is kept
        self._note.value = escape(text)
        set_visible(self._note, bool(text))
        self.widget.flush()

    def flush(self) -> None:
        """Render any buffered text now (end of a run, before structural changes)."""
        self._coalescer.flush()
        self.footer.refresh()
        self.widget.flush()

    def set_model(self, label: str, context_window: int | None) -> None:
        """The resolved model: its name, and the window the context gauge measures against."""
        self.record.set_model(label, context_window)
        self.footer.model_label = label
        self.footer.context_window = context_window
        self.footer.refresh()
        self.widget.flush()

    def show_plan(self, plan: PlanState) -> None:
        """The task plan (a ``PlanState``), above the transcript; hidden while it is empty."""
        self.record.show_plan(plan)
        if self.plan is None:
            if not plan.items:
                return
            self.plan = PlanView(self._shared)
            self._arrange()
        self.plan.show(plan)
        self.widget.flush()

    def memory_saved(self, *changes: MemoryChange) -> None:
        """Memory changes (``MemoryChange``), each shown with an Undo button."""
        if not changes:
            return
        self.record.memory_saved(*changes)
        if self.memory is None:
            self.memory = MemoryView(self._shared)
            self._arrange()
        self.memory.add(*changes)
        self.widget.flush()

    def child_event(self, child_id: str, event: ChildEvent) -> None:
        """An event of a sub-agent: shown in its card, nested under the delegate call."""
        self.record.child_event(child_id, event)
        try:
            self.children.handle(child_id, event)
        except Exception as exc:  # noqa: BLE001 - a display problem must not end the sub-agent
            self.show_error(f"panel could not show a sub-agent's {event.type} event: {fmt.error_text(exc)}")
        self.widget.flush()

    def offer_materialize(self, cells: int, materialize: Callable[[], str]) -> None:
        """A "Materialize" button for a finished turn; ``materialize()`` says what it did."""
        label = f"Materialize {cells} cell{'s' if cells != 1 else ''}"
        # The button goes with the widgets when the turn ends; the saved cell says what still works.
        self.record.note(f'{label}: run %agent materialize, or the command "Materialize the Agent\'s Code".')
        button = self._shared.button(
            label,
            icon="plus-square",
            _dom_classes=("ja-materialize",),
            tooltip="Insert the Python code the agent ran as cells below this one",
        )
        button.on_click(lambda _button: self.note(materialize()))
        self.materialize_button = button
        self._arrange()
        self.widget.flush()

    def _sections(self) -> list[Node]:
        parts: list[Node | None] = [
            self.plan.widget if self.plan else None,
            self._body,
            self.memory.widget if self.memory else None,
            self.approval.widget,
            self._error,
            self._note,
            self.materialize_button,
            self.controls.widget,
            self.footer.widget,
        ]
        return [part for part in parts if part is not None]

    def _arrange(self) -> None:
        self.root.children = tuple(self._sections())

    # Event handlers
    def _dispatch(self, event: RunEvent) -> None:
        dispatch(self, event)

    def _on_text_delta(self, event: RunTextDeltaEvent) -> None:
        if self._text is None:
            self._end_streams()
            self._text = self._new_stream("ja-stream")
            self._append(self._text.widget)
        self._text.append(event.delta)
        self._coalescer.poke()

    def _on_thinking_delta(self, event: RunThinkingDeltaEvent) -> None:
        if self._thinking is None:
            self._end_streams()
            self._thinking = self._new_stream("ja-stream")
            box = self._shared.accordion(self._thinking.widget, "Thinking", "ja-thinking")
            self._append(box)
        self._thinking.append(event.delta)
        self._coalescer.poke()

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        self._end_streams()
        card = ToolCard(event.tool_call_id, event.name, event.args, clock=self._clock.now, shared=self._shared)
        self._cards[event.tool_call_id] = card
        self._append(card.widget)

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        card = self._cards.get(event.tool_call_id)
        if card is None:  # a result without its call (should not happen): still show it
            card = ToolCard(event.tool_call_id, event.name, {}, clock=self._clock.now, shared=self._shared)
            self._cards[event.tool_call_id] = card
            self._append(card.widget)
        card.finish(event.content, event.is_error, cancelled=was_cancelled(event.details))
        self.footer.refresh()

    def _on_step_finish(self, event: StepFinishEvent) -> None:
        self.footer.usage = event.usage or self.footer.usage
        if event.model:
            self.footer.model_label = event.model
        self.footer.refresh()

    def _on_user_message(self, event: UserMessageEvent) -> None:
        if event.phase == "queued":
            self.controls.add_queued(event.delivery, event.text)
            return
        self.controls.mark_delivered(event.delivery, event.text)
        self._end_streams()
        kind = "steer" if event.delivery == "steer" else "follow-up"
        message = self._shared.html(f"<b>You</b> ({kind}): {escape(event.text)}", "ja-user")
        self._append(message)

    # Streams
    def _new_stream(self, css_class: str) -> MarkdownStream:
        return MarkdownStream(css_class=css_class, shared=self._shared)

    def _streams(self) -> list[MarkdownStream]:
        own = [stream for stream in (self._text, self._thinking) if stream is not None]
        return own + self.children.streams()

    def _render_streams(self) -> None:
        # Runs from a loop timer too, where an exception would land in no cell: show it here.
        try:
            for stream in self._streams():
                stream.render()
        except Exception as exc:  # noqa: BLE001
            self.show_error(f"panel could not render text: {fmt.error_text(exc)}")
        if self._clock.now() - self._footer_shown_at >= FOOTER_TICK:
            self._footer_shown_at = self._clock.now()
            self.footer.refresh()
        self.widget.flush()

    def _end_streams(self) -> None:
        """Close the open text and thinking streams: whatever comes next goes below them."""
        if self._text is None and self._thinking is None:
            return
        self._coalescer.flush()
        for stream in (self._text, self._thinking):
            if stream is not None:
                stream.close()
        self._text = self._thinking = None

    def _append(self, node: Node) -> None:
        self._body.children = (*self._body.children, node)

    def _place_child(self, widget: Node) -> None:
        card = self._open_card("delegate")
        if card is not None:
            card.nest(widget)
        else:  # events of a sub-agent whose call has no card (should not happen): still show them
            self._append(widget)

    def _open_card(self, tool_name: str) -> ToolCard | None:
        for card in reversed(self._cards.values()):
            if not card.finished and card.name == tool_name:
                return card
        return None
