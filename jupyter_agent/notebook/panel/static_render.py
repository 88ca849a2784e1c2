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

from jupyter_agent.loop.abort import was_cancelled
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.dispatch import EventRouter
from jupyter_agent.notebook.panel.status import RunStatus, finish_state
from jupyter_agent.notebook.panel.transcript_document import (
    STATIC_OUTPUT_CHARS,
    TranscriptDocument,
    escape_markdown,
    fenced,
)

if TYPE_CHECKING:
    from jupyter_agent.features.memory.store import MemoryChange
    from jupyter_agent.features.plan.state import PlanState
    from jupyter_agent.notebook.renderer import ChildEvent
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


class TranscriptRecorder(EventRouter):
    """Run events → a static document; the notes and plan the live panel shows are kept too."""

    def __init__(
        self, *, model_label: str = "", session: str = "main", context_window: int | None = None, demo: bool = False
    ) -> None:
        self.status = RunStatus(model_label=model_label, session=session, context_window=context_window, demo=demo)
        self.document = TranscriptDocument()
        self._text: list[str] = []
        self._plan = ""  # the latest plan, shown once when the turn ends
        self.finished = False  # the run's finish event arrived (and with it the summary line)

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
                cancelled = was_cancelled(event.details)
                self.document.tool_result(event.tool_call_id, event.name, event.content, event.is_error, cancelled=cancelled)
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
        if text:
            self._end_text()
            self.document.note(text)

    def set_model(self, label: str, context_window: int | None) -> None:
        self.status.model_label = label
        self.status.context_window = context_window

    def show_plan(self, plan: PlanState) -> None:
        """Kept until the turn ends: one checklist in the output, the final one."""
        from jupyter_agent.features.plan.state import plan_markdown

        done = sum(item.status == "done" for item in plan.items)
        self._plan = f"**Plan** ({done}/{len(plan.items)} done)\n\n{plan_markdown(plan)}" if plan.items else ""

    def offer_materialize(self, cells: int, materialize: Callable[[], str]) -> None:
        """No buttons here: ``%agent materialize`` puts the code into the next input."""

    def memory_saved(self, *changes: MemoryChange) -> None:
        for change in changes:
            self.note(f"Memory {change.kind}: {change.name} — {change.summary} (undo: %agent memory undo {change.name})")

    def child_event(self, child_id: str, event: ChildEvent) -> None:
        """One line per sub-agent when it ends; its report is the delegate tool's output."""
        if event.type != "finish":
            return
        state, detail = finish_state(event.reason)
        name = child_id.replace("child-", "sub-agent ")
        self.note(f"{name} {state}{f' ({detail})' if detail else ''}")

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
        if self._plan:
            self.document.markdown_block(self._plan)
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
        name = fmt.field(request, "tool_name", "tool")
        if self.approval != "deny":
            self.note(f"{name} allowed without asking: this run cannot show an approval prompt.")
        elif self._explained:
            self.note(f"{name} denied (headless run, see above).")
        else:
            self.note(headless_denial(name))
            self._explained = True
        return self.approval

    def set_state(self, state: str, detail: str = "") -> None:
        self.status.set_state(state, detail)
        if state == "waiting":
            self.note(self.status.state_text())

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
