"""Plain displays for frontends without widgets and for headless runs (nbclient, papermill).

nbclient records only output whose parent is the executing cell, so nothing is shown while the
run streams: the transcript accumulates as Markdown (and images) and `flush()` displays it —
once per flush, only what is new — while the cell still executes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.dispatch import EventRouter
from jupyter_agent.notebook.panel.markdown import unclosed_fence
from jupyter_agent.notebook.panel.status import RunStatus, finish_state

# Tool output in a saved notebook is for reading, not for scrolling through.
STATIC_OUTPUT_CHARS = 4_000


def fenced(text: str, language: str = "") -> str:
    """A code fence that the content cannot close early."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


class StaticRenderer(EventRouter):
    """Same surface as AgentPanel; renders with IPython.display Markdown at `flush()`."""

    def __init__(self, *, model_label: str = "", session: str = "main", context_window: int | None = None,
                 demo: bool = False, approval: str = "deny",
                 display: Callable[[Any], None] | None = None) -> None:
        self.status = RunStatus(model_label=model_label, session=session,
                                context_window=context_window, demo=demo)
        # What ask() answers: a headless run cannot wait for a click.
        self.approval = approval
        self.on_stop: Callable[[], None] | None = None
        self.on_steer: Callable[[str], bool] | None = None
        self.on_follow_up: Callable[[str], bool] | None = None
        self._display = display
        self._parts: list[tuple[str, Any]] = []  # ("md", text) | ("image", (bytes, mime))
        self._text: list[str] = []
        self._plan = ""  # the latest plan, shown once when the turn ends
        self._handlers: dict[str, Callable[[Any], None]] = {
            "run_start": lambda e: self.status.start(getattr(e, "step_budget", None)),
            "step_start": self._on_step_start, "text_delta": lambda e: self._text.append(e.delta),
            "tool_call": self._on_tool_call, "tool_result": self._on_tool_result,
            "step_finish": self._on_step_finish, "user_message": self._on_user_message,
            "compacted": self._on_compacted, "finish": self._on_finish,
            "error": lambda e: self.show_error(fmt.error_text(getattr(e, "error", e))),
        }

    async def ask(self, request: Any) -> str:
        name = fmt.field(request, "tool_name", "tool")
        verb = "denied" if self.approval == "deny" else "allowed"
        self.note(f"{name} {verb} without asking: this run cannot show an approval prompt "
                  "(run with -p yolo or -p readonly to choose).")
        return self.approval

    def set_state(self, state: str, detail: str = "") -> None:
        self.status.set_state(state, detail)
        if state == "waiting":
            self.note(self.status.state_text())

    def show_error(self, text: str) -> None:
        self._end_text()
        self._parts.append(("md", f"**Error**\n\n{fenced(text)}"))

    def note(self, text: str) -> None:
        if text:
            self._end_text()
            self._parts.append(("md", f"*{_escape_markdown(text)}*"))

    def flush(self) -> None:
        """Display what accumulated since the last flush."""
        self._end_text()
        parts, self._parts = self._parts, []
        display = self._display or _ipython_display
        markdown: list[str] = []
        for kind, value in parts:
            if kind == "md":
                markdown.append(value)
                continue
            if markdown:
                display(_markdown("\n\n".join(markdown)))
                markdown = []
            display(_image(*value))
        if markdown:
            display(_markdown("\n\n".join(markdown)))

    def set_model(self, label: str, context_window: int | None) -> None:
        self.status.model_label = label
        self.status.context_window = context_window

    def show_plan(self, plan: Any) -> None:
        """Kept until the turn ends: one checklist in the output, the final one."""
        from jupyter_agent.features.plan.state import plan_markdown

        done = sum(item.status == "done" for item in plan.items)
        self._plan = f"**Plan** ({done}/{len(plan.items)} done)\n\n{plan_markdown(plan)}" if plan.items else ""

    def memory_saved(self, *changes: Any) -> None:
        for change in changes:
            self.note(f"Memory {change.kind}: {change.name} — {change.summary}")

    def child_event(self, child_id: str, event: Any) -> None:
        """One line per sub-agent when it ends; its report is the delegate tool's output."""
        if getattr(event, "type", None) != "finish":
            return
        state, detail = finish_state(getattr(event, "reason", "completed"))
        self._end_text()
        name = child_id.replace("child-", "sub-agent ")
        self._parts.append(("md", f"*{name} {state}{f' ({detail})' if detail else ''}*"))

    def markdown(self) -> str:
        """The Markdown accumulated and not yet displayed (tests, debugging)."""
        self._end_text()
        return "\n\n".join(value for kind, value in self._parts if kind == "md")

    def _end_text(self) -> None:
        text = "".join(self._text).strip()
        self._text.clear()
        if text:
            # A fence the model left open would swallow everything displayed after it.
            marker = unclosed_fence(text)
            self._parts.append(("md", f"{text}\n{marker}" if marker else text))

    def _on_step_start(self, event: Any) -> None:
        self._end_text()
        self.status.step = getattr(event, "step", self.status.step + 1)

    def _on_tool_call(self, event: Any) -> None:
        self._end_text()
        lines = [f"**▸ `{event.name}`**"]
        for label, text, language in fmt.args_sections(getattr(event, "args", {})):
            lines.append(f"{label}:\n{fenced(text, language)}")
        self._parts.append(("md", "\n\n".join(lines)))

    def _on_tool_result(self, event: Any) -> None:
        content = getattr(event, "content", [])
        text = fmt.truncate(fmt.output_text(content), STATIC_OUTPUT_CHARS)
        if text:
            label = "error" if getattr(event, "is_error", False) else "output"
            self._parts.append(("md", f"{label}:\n{fenced(text)}"))
        self._parts.extend(("image", image) for image in fmt.images(content))

    def _on_step_finish(self, event: Any) -> None:
        self.status.usage = getattr(event, "usage", None) or self.status.usage

    def _on_user_message(self, event: Any) -> None:
        if getattr(event, "phase", "delivered") == "delivered":
            self._end_text()
            kind = "steer" if getattr(event, "delivery", "steer") == "steer" else "follow-up"
            self._parts.append(("md", f"**You ({kind}):** {_escape_markdown(event.text)}"))

    def _on_compacted(self, event: Any) -> None:
        self.note(f"Context compacted: {getattr(event, 'dropped_messages', 0)} earlier messages summarized.")

    def _on_finish(self, event: Any) -> None:
        self._end_text()
        if self._plan:
            self._parts.append(("md", self._plan))
        self.status.usage = getattr(event, "usage", None) or self.status.usage
        self.status.set_state(*finish_state(getattr(event, "reason", "completed")))
        self._parts.append(("md", f"*{_escape_markdown(self.status.summary())}*"))


def _escape_markdown(text: str) -> str:
    # Notes and user text are shown literally, not as Markdown or HTML.
    return re.sub(r"([\\`*_{}\[\]<>#|~])", r"\\\1", text)


def _ipython_display(obj: Any) -> None:
    from IPython.display import display

    display(obj)


def _markdown(text: str) -> Any:
    from IPython.display import Markdown

    return Markdown(text)


def _image(data: bytes, mime: str) -> Any:
    from IPython.display import Image

    return Image(data=data, format=mime.split("/")[-1] or "png")
