"""The static rendering of a turn: kept from its events, displayed as plain notebook outputs.

``TranscriptRecorder`` turns run events into a ``TranscriptDocument``. The widget panel keeps
one beside its widgets and replaces itself with the recording when the turn ends, so a saved
notebook shows the answer without a kernel. ``StaticRenderer`` is the renderer of frontends
without widgets and of headless runs (nbclient, papermill): nbclient records only output whose
parent is the executing cell, so nothing is shown while the run streams and ``flush()`` displays
what accumulated — once per flush, only what is new — while the cell still executes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from jupyter_agent.loop.abort import was_cancelled, was_stopped_while_running
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.status import RunStatus, finish_state
from jupyter_agent.notebook.panel.transcript_document import (
    STATIC_OUTPUT_CHARS,
    TranscriptDocument,
    escape_markdown,
    fenced,
)
from jupyter_agent.notebook.renderer import EventRouter
from jupyter_agent.notebook.views import StaticSurface, Views

if TYPE_CHECKING:
    from jupyter_agent.runtime.events import FinishEvent, RunEvent
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

__all__ = ["STATIC_OUTPUT_CHARS", "StaticRenderer", "TranscriptRecorder", "fenced", "display_bundles"]


HOW_TO_ALLOW = (
    "To allow mutating tools in a headless run, put -p yolo on the %%agent line, "
    'or run %config AgentMagics.permissions = "yolo" before it, '
    "or set JUPYTER_AGENT_PERMISSIONS=yolo (or readonly, ask) in the environment."
)


def headless_denial(name: str) -> str:
    return f"{name} denied: a headless run cannot show an approval prompt. {HOW_TO_ALLOW}"


def denied_headless(name: str) -> str:
    """What the model reads: nobody declined, nobody could be asked."""
    return (
        f'Tool call "{name}" was denied (headless run: nobody can approve it). It did not run. '
        "Do not retry it; continue with read-only tools or say what you would have run."
    )


class TranscriptRecorder(EventRouter):
    """Run events → a static document; the notes and what the features' views add are kept too."""

    def __init__(
        self, *, model_label: str = "", session: str = "main", context_window: int | None = None, demo: bool = False
    ) -> None:
        self.status = RunStatus(model_label=model_label, session=session, context_window=context_window, demo=demo)
        self.document = TranscriptDocument()
        self._text: list[str] = []
        self.views: Views[StaticSurface] = Views("static", self)
        self.finished = False  # the run's finish event arrived (and with it the summary line)
        self._last_note: str | None = None  # the block of the latest note, which note("") takes back

    def _dispatch(self, event: RunEvent) -> None:
        match event.type:
            case "run_start":
                self.status.start(event.step_budget)
            case "step_start":
                self._end_text()
                self.status.step = event.step
            case "text_delta":
                self._text.append(event.delta)
            case "tool_call":
                self._end_text()
                self.document.tool_call(event.tool_call_id, event.name, event.args)
            case "tool_result":
                cancelled, stopped = was_cancelled(event.details), was_stopped_while_running(event.details)
                self.document.tool_result(
                    event.tool_call_id,
                    event.name,
                    event.shown,
                    event.is_error,
                    cancelled=cancelled,
                    stopped=stopped,
                    withheld=event.withheld,
                )
            case "step_finish":
                self.status.usage = event.usage or self.status.usage
            case "user_message" if event.phase == "delivered":
                self._end_text()
                kind = "steer" if event.delivery == "steer" else "follow-up"
                self.document.user(event.text, f"You ({kind})")
            case "compacted":
                self.note(f"Context compacted: {event.dropped_messages} earlier messages summarized.")
            case "finish":
                self._on_finish(event)
            case "error":
                self.show_error(fmt.error_text(event.error))

    def show_error(self, text: str) -> None:
        self._end_text()
        self.document.error(text)

    def note(self, text: str) -> None:
        """A note kept in the document. Empty text takes the last note back while it is not shown yet:
        a status that is over ("Loading litellm…"), as the live panel clears its note line, so the
        saved output of a headless run holds no progress lines."""
        if text:
            self._end_text()
            self._last_note = self.document.note(text)
        elif self._last_note is not None:
            self.document.retract(self._last_note)
            self._last_note = None

    def set_model(self, label: str, context_window: int | None) -> None:
        self.status.model_label = label
        self.status.context_window = context_window

    def markdown(self) -> str:
        """The Markdown recorded and not yet displayed (tests, debugging)."""
        self._end_text()
        return self.document.markdown()

    def summary(self) -> str:
        return self.status.summary()

    def end(self, summary: str) -> None:
        """The turn is over: what is still buffered, and the status line if no finish event gave one."""
        self._end_text()
        if not self.finished:
            self.document.markdown_block(f"*{escape_markdown(summary)}*")
            self.finished = True

    def _end_text(self) -> None:
        # Thinking stays in the session file: the saved cell shows what the agent said and did.
        text = "".join(self._text)
        self._text.clear()
        self.document.text(text)

    def _on_finish(self, event: FinishEvent) -> None:
        self.finished = True
        self._end_text()
        for block in self.views.final_markdown():  # the final plan, once
            self.document.markdown_block(block)
        self.status.usage = event.usage or self.status.usage
        self.status.set_state(*finish_state(event.reason))
        self.document.markdown_block(f"*{escape_markdown(self.status.summary())}*")


class StaticRenderer(TranscriptRecorder):
    """Same surface as AgentPanel; displays Markdown + HTML outputs at ``flush()``."""

    def __init__(
        self,
        *,
        model_label: str = "",
        session: str = "main",
        context_window: int | None = None,
        demo: bool = False,
        approval: Decision = "deny",
        display: Callable[[dict[str, str]], None] | None = None,
    ) -> None:
        super().__init__(model_label=model_label, session=session, context_window=context_window, demo=demo)
        # What ask() answers: a headless run cannot wait for a click.
        self.approval = approval
        self._explained = False  # the how-to-allow note is shown once per turn
        self.on_stop: Callable[[], None] | None = None
        self.on_steer: Callable[[str], bool] | None = None
        self.on_follow_up: Callable[[str], bool] | None = None
        self._display = display or display_bundle

    async def ask(self, request: ApprovalRequest) -> Decision:
        """``approval``, or (by default) ``ToolCallDenied``: the denial names the headless run."""
        from jupyter_agent.runtime.permissions import ToolCallDenied

        name = str(fmt.field(request, "tool_name", "tool"))
        if self.approval != "deny":
            self.note(f"{name} allowed without asking: this run cannot show an approval prompt.")
            return self.approval
        if self._explained:
            self.note(f"{name} denied (headless run, see above).")
        else:
            self.note(headless_denial(name))
            self._explained = True
        raise ToolCallDenied(denied_headless(name))

    def set_state(self, state: str, detail: str = "") -> None:
        was_waiting = self.status.state == "waiting"
        self.status.set_state(state, detail)
        if state == "waiting":
            self.note(self.status.state_text())
        elif was_waiting:
            self.note("")  # "waiting for the turn above" is over: the saved output does not keep it

    def flush(self) -> None:
        """Display what accumulated since the last flush."""
        self._end_text()
        for bundle in self.document.bundles(self.document.take(), summary=self.summary(), state=self.status.state):
            self._display(bundle)

    def finish(self) -> None:
        self.flush()


def display_bundle(bundle: dict[str, str]) -> None:
    from IPython.display import display

    display(bundle, raw=True)


def display_bundles(bundles: list[dict[str, str]]) -> None:
    for bundle in bundles:
        display_bundle(bundle)
