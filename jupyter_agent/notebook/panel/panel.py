"""AgentPanel: the live view of one agent turn, fed by run events; one widget per turn.

A pure consumer: `handle(event)` turns each run event into changes of the panel's nodes (cheaply —
text is buffered and rendered by a coalescer that bounds its lag), `ask()` waits for an approval
click, and the buttons call the `on_*` hooks the integration installs. There is no agent logic here,
and no feature: a feature's events go to the views registered for them (``notebook/views.py``),
which draw through the panel's ``PanelSurface`` (``place``, ``nest``, ``stream_source``…).
Every public method ends by sending what it changed (``PanelWidget.flush``): one message at most.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.approval_bar import ApprovalBar
from jupyter_agent.notebook.panel.coalescer import Clock, Coalescer, LoopClock, TimerHandle
from jupyter_agent.notebook.panel.controls import Controls
from jupyter_agent.notebook.panel.footer import Footer
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.live_only import LiveOnly
from jupyter_agent.notebook.panel.nodes import Node
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible
from jupyter_agent.notebook.panel.static_render import TranscriptRecorder
from jupyter_agent.notebook.panel.status import TERMINAL, finish_state
from jupyter_agent.notebook.panel.tool_card import ToolCard, refresh_clocks
from jupyter_agent.notebook.panel.transcript import MarkdownStream
from jupyter_agent.notebook.panel.turn_widget import PanelWidget
from jupyter_agent.notebook.renderer import EventRouter, TurnEvent
from jupyter_agent.notebook.views import PanelSurface, Place, Views
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
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

# Text is sent at most this long after it arrived, at any rate: an update costs its new text and
# ~60 bytes of envelope (the comm message's content: its comm id, "method", "content"), so 8
# updates a second keep a 1 000 chars/s answer's panel bytes near its own size, still smooth to read.
MAX_LAG = 0.125
# A delta this long after the one before it is sent as soon as MIN_INTERVAL allows: a slow stream (100
# chars/s, a model pausing between sentences) would show each piece up to MAX_LAG late, and costs few
# updates; a fast one's chunks come 10–40 ms apart and stay batched.
QUIET_AFTER = 0.06
# Refresh the elapsed time in the footer at most this often while text streams.
FOOTER_TICK = 5.0
# How long agent-run Python waits, once a turn, for the page to connect to the panel before it holds
# the loop: a page shows a new panel within a few hundred milliseconds, and a kernel with no page
# open pays this once.
VIEW_WAIT = 2.0
# Events whose change (the footer's step and usage) can wait for the next update, at most MAX_LAG:
# at a step's end the finish or the next step's text follows within milliseconds, and one message
# carries both.
_SENT_WITH_THE_NEXT_UPDATE = frozenset({"step_start", "step_finish"})


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
        # What the features' views placed (most turns: nothing), by place.
        self._placed: dict[Place, list[Node]] = {"top": [], "bottom": [], "actions": []}
        self._stream_sources: list[Callable[[], list[MarkdownStream]]] = []
        self._error = self._shared.html("", "ja-error", HIDDEN)
        self._note = self._shared.html("", "ja-note", HIDDEN)
        self.live_only = LiveOnly(self._shared, lambda: self.widget.flush())  # e.g. %agent serve's token
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
        self.widget.immediate.update(self.controls.immediate_ids())  # they must reach code that blocks the loop
        self._coalescer = Coalescer(
            self._render_streams, ready=lambda: False, max_interval=MAX_LAG, quiet_after=QUIET_AFTER, clock=self._clock
        )
        self._text: MarkdownStream | None = None
        self._thinking: MarkdownStream | None = None
        self._cards: dict[str, ToolCard] = {}
        self.views: Views[PanelSurface] = Views("panel", self)
        self._errors: list[str] = []
        self._footer_shown_at = self._clock.now()
        self._footer_timer: TimerHandle | None = None
        self._view_waited = False
        self.state = "running"

    # Hooks the integration installs; the buttons call them.
    on_stop = _controls_hook("on_stop")
    on_steer = _controls_hook("on_steer")
    on_follow_up = _controls_hook("on_follow_up")

    def handle(self, event: TurnEvent) -> None:
        with self.widget.held():  # one message per event at most
            self.record.handle(event)
            super().handle(event)
        if event.type in _SENT_WITH_THE_NEXT_UPDATE:
            self._coalescer.poke()
        else:
            self.widget.flush()

    def static_bundles(self) -> list[dict[str, str]]:
        """The finished turn as notebook outputs (Markdown + HTML, images), for a saved notebook."""
        if self._last_note:  # note("") would take back the record's own last note (a memory change)
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
        with self.widget.held():  # the last text, the state and the disabled controls: one message
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
        if self.footer.state not in TERMINAL:
            if self._clock.now() - self._footer_shown_at >= FOOTER_TICK:
                self.tick()
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

    async def before_blocking(self) -> None:
        """Awaited before agent-run Python holds the loop: lets the page's hello arrive first.

        JupyterLab sends a kernel's first widget messages on the main shell (until its subshell for
        widgets exists), and the code would hold that shell's loop: the panel would stay blank, its
        card and countdown unseen, until the code ends. Waits once a turn, up to ``VIEW_WAIT``.
        """
        if not self._view_waited:
            self._view_waited = True
            await self.widget.greeted(VIEW_WAIT)

    def tick(self) -> None:
        """Moves the footer's clock when the loop cannot (agent-run code blocks it)."""
        if self.footer.state not in TERMINAL:
            self._footer_shown_at = self._clock.now()
            self.footer.refresh()
            refresh_clocks(self._cards.values())

    def show_error(self, text: str, record: bool = True) -> None:
        if record:  # False for an error event: ``handle`` gave it to the recording already
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

    # The PanelSurface the features' views draw through (``notebook/views.py``).

    @property
    def shared(self) -> Shared:
        return self._shared

    def now(self) -> float:
        return self._clock.now()

    def place(self, node: Node, where: Place) -> None:
        self._placed[where].append(node)
        self._arrange()

    def nest(self, tool_name: str, node: Node) -> None:
        card = self._open_card(tool_name)
        if card is not None:
            card.nest(node)
        else:  # a node for a call that has no card (should not happen): still show it
            self._append(node)

    def stream_source(self, streams: Callable[[], list[MarkdownStream]]) -> None:
        self._stream_sources.append(streams)

    def flush_text(self) -> None:
        self._coalescer.flush()

    def poke(self) -> None:
        self._coalescer.poke()

    def _sections(self) -> list[Node]:
        placed = self._placed
        return [
            *placed["top"],
            self._body,
            *placed["bottom"],
            self.approval.widget,
            self._error,
            self._note,
            self.live_only.node,
            *placed["actions"],
            self.controls.widget,
            self.footer.widget,
        ]

    def _arrange(self) -> None:
        self.root.children = tuple(self._sections())

    # Event handlers
    def _dispatch(self, event: RunEvent) -> None:
        match event.type:
            case "run_start":
                self.footer.start(event.step_budget)
                self.set_state("running")
            case "step_start":
                self._end_streams()
                self.footer.step = event.step
                self.footer.refresh()
            case "text_delta":
                self._on_text_delta(event)
            case "thinking_delta":
                self._on_thinking_delta(event)
            case "tool_call":
                self._on_tool_call(event)
            case "tool_result":
                self._on_tool_result(event)
            case "step_finish":
                self._on_step_finish(event)
            case "user_message":
                self._on_user_message(event)
            case "compacted":
                self._end_streams()
                text = (
                    f"Context compacted: {event.dropped_messages} earlier messages summarized "
                    f"({event.summary_chars:,} characters)."
                )
                self._append(self._shared.html(escape(text), "ja-event"))
            case "message":
                if getattr(event.message, "role", "") == "assistant":
                    self._end_streams()  # the stream closed: its last text goes out now, not at the run's end
            case "approval_request":
                card = self._open_card(event.request.tool_name)
                if card is not None:
                    card.set_status("waiting for approval")
            case "approval_response":
                card = self._open_card(event.request.tool_name)
                if card is not None and event.decision in ("deny", "cancelled"):  # "cancelled": ended meanwhile
                    card.set_status("denied" if event.decision == "deny" else "cancelled")
                elif card is not None:
                    card.running()
            case "finish":
                self._end_streams()
                self.footer.usage = event.usage or self.footer.usage
                self.controls.clear_queue()
                self.set_state(*finish_state(event.reason))
            case "error":
                self.show_error(fmt.error_text(event.error), record=False)  # the recording has the event already

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
        # Its title counts down while it runs, from its first title on (the page counts while the kernel cannot).
        card = ToolCard(
            event.tool_call_id, event.name, event.args, clock=self._clock.now, shared=self._shared, time_limit=event.time_limit
        )
        self._cards[event.tool_call_id] = card
        self._append(card.widget)

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        card = self._cards.get(event.tool_call_id)
        if card is None:  # a result without its call (should not happen): still show it
            card = ToolCard(event.tool_call_id, event.name, {}, clock=self._clock.now, shared=self._shared)
            self._cards[event.tool_call_id] = card
            self._append(card.widget)
        card.finish(event.shown, event.is_error, details=event.details, withheld=event.withheld)
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
        return own + [stream for source in self._stream_sources for stream in source()]

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

    def _open_card(self, tool_name: str) -> ToolCard | None:
        for card in reversed(self._cards.values()):
            if not card.finished and card.name == tool_name:
                return card
        return None
