"""Terminal IPython: the run as plain text on stdout, approvals asked with `allow? [y/n/a/A]`.

Text deltas are written as they come (a terminal has no comm channel to flood). `ask()` reads
the answer on the event loop (``terminal_input``), so it keeps running meanwhile and Ctrl-C leaves
nothing reading the terminal, after showing every line of the call. Nothing a model or a tool wrote reaches the terminal raw: escape
sequences are removed and invisible characters revealed, so no output can redraw the prompt.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

import anyio.to_thread

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.dispatch import EventRouter
from jupyter_agent.notebook.panel.status import RunStatus, finish_state
from jupyter_agent.notebook.panel.terminal_input import read_line
from jupyter_agent.notebook.panel.visible import reveal, terminal_safe

if TYPE_CHECKING:
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

ANSWERS: dict[str, Decision] = {"y": "once", "a": "tool", "A": "call", "n": "deny"}
# A terminal shows the head of a tool's output; the model got the full (capped) text.
OUTPUT_LINES = 20


class TextRenderer(EventRouter):
    """Same surface as AgentPanel, for a terminal."""

    def __init__(
        self,
        *,
        model_label: str = "",
        session: str = "main",
        context_window: int | None = None,
        demo: bool = False,
        stream: TextIO | None = None,
        input_fn: Callable[[str], str] | None = None,
    ) -> None:
        self.status = RunStatus(model_label=model_label, session=session, context_window=context_window, demo=demo)
        self.on_stop: Callable[[], None] | None = None
        self.on_steer: Callable[[str], bool] | None = None
        self.on_follow_up: Callable[[str], bool] | None = None
        self._out = stream
        self._input = input_fn  # None: the terminal, read on the event loop (see terminal_input)
        self._mode = ""  # "text" | "thinking" while a stream is open
        self._at_line_start = True
        self._handlers: dict[str, Callable[[Any], None]] = {
            "run_start": self._on_run_start,
            "step_start": self._on_step_start,
            "text_delta": lambda e: self._stream("text", e.delta),
            "thinking_delta": lambda e: self._stream("thinking", e.delta),
            "tool_call": self._on_tool_call,
            "tool_result": self._on_tool_result,
            "step_finish": self._on_step_finish,
            "user_message": self._on_user_message,
            "compacted": lambda e: self.note(
                f"context compacted: {getattr(e, 'dropped_messages', 0)} earlier messages summarized"
            ),
            "finish": self._on_finish,
            "error": lambda e: self.show_error(fmt.error_text(getattr(e, "error", e))),
        }

    @property
    def out(self) -> TextIO:
        # Resolved late: IPython and pytest swap sys.stdout after construction.
        return self._out or sys.stdout

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Ask on the terminal until the answer is y, n, a or A; end of input denies."""
        name = fmt.field(request, "tool_name", "tool")
        self._line(f"{self._bold('?')} {name} wants to run:")
        self._args(fmt.field(request, "args", {}))
        self.out.flush()
        prompt = f"allow {name}? [y/n/a/A] (y once, a always {name}, A this exact call, n deny) "
        while True:
            try:
                answer = await self._read(prompt)
            except EOFError:
                return "deny"
            decision = ANSWERS.get(answer.strip())
            if decision is not None:
                return decision
            self._line("please answer y, n, a or A")

    async def _read(self, prompt: str) -> str:
        if self._input is None:
            return await read_line(prompt, self.out)
        return await anyio.to_thread.run_sync(self._input, prompt, abandon_on_cancel=True)

    def set_state(self, state: str, detail: str = "") -> None:
        self.status.set_state(state, detail)
        if state == "waiting":
            self.note(self.status.state_text())

    def show_error(self, text: str) -> None:
        self._line(f"{self._color('31', 'error:')} {terminal_safe(text)}")

    def note(self, text: str) -> None:
        if text:
            self._line(self._dim(f"({terminal_safe(text)})"))

    def flush(self) -> None:
        self._end_stream()
        self.out.flush()

    def finish(self) -> None:
        """The turn ended: the terminal already shows everything."""
        self.flush()

    def set_model(self, label: str, context_window: int | None) -> None:
        self.status.model_label = label
        self.status.context_window = context_window

    def show_plan(self, plan: Any) -> None:
        """Prints the checklist each time it changes (a terminal cannot redraw it in place)."""
        from jupyter_agent.features.plan.state import render_plan_text

        for line in render_plan_text(plan).splitlines():
            self._line(self._dim("  " + line))

    def offer_materialize(self, cells: int, materialize: Callable[[], str]) -> None:
        """No buttons here: ``%agent materialize`` puts the code into the next input."""

    def memory_saved(self, *changes: Any) -> None:
        for change in changes:
            undo = f"; %agent memory delete {change.name} removes it" if change.kind == "created" else ""
            self.note(f"memory {change.kind}: {change.name} — {change.summary}{undo}")

    def child_event(self, child_id: str, event: Any) -> None:
        """A sub-agent's progress as indented lines (its text is the delegate tool's result)."""
        kind = getattr(event, "type", None)
        name = child_id.replace("child-", "sub-agent ")
        if kind == "child_queued":
            self._line(self._dim(f"  ↳ {name}: {terminal_safe(' '.join(event.task.split()))[:100]}"))
        elif kind == "tool_call":
            self._line(self._dim(f"    {name} ▸ {event.name} {fmt.args_summary(getattr(event, 'args', {}))}"))
        elif kind == "finish":
            state, detail = finish_state(getattr(event, "reason", "completed"))
            self._line(self._dim(f"    {name} {state}" + (f" ({detail})" if detail else "")))

    def _on_run_start(self, event: Any) -> None:
        self.status.start(getattr(event, "step_budget", None))
        self.status.set_state("running")

    def _on_step_start(self, event: Any) -> None:
        self.status.step = getattr(event, "step", self.status.step + 1)

    def _on_tool_call(self, event: Any) -> None:
        summary = fmt.args_summary(getattr(event, "args", {}))
        self._line(f"{self._bold('▸ ' + event.name)} {self._dim(summary)}")

    def _on_tool_result(self, event: Any) -> None:
        content = getattr(event, "content", [])
        lines = terminal_safe(fmt.output_text(content)).split("\n")
        lines = lines[:-1] if lines and not lines[-1] else lines
        mark = self._color("31", "✗") if getattr(event, "is_error", False) else self._color("32", "✓")
        self._line(f"  {mark} {event.name}")
        for line in lines[:OUTPUT_LINES]:
            self._line(f"  │ {line}")
        if len(lines) > OUTPUT_LINES:
            self._line(self._dim(f"  │ … {len(lines) - OUTPUT_LINES} more lines"))
        pictures = fmt.images(content)
        if pictures:
            self._line(self._dim(f"  │ [{len(pictures)} image(s) not shown in a terminal]"))

    def _on_step_finish(self, event: Any) -> None:
        self.status.usage = getattr(event, "usage", None) or self.status.usage

    def _on_user_message(self, event: Any) -> None:
        kind = "steer" if getattr(event, "delivery", "steer") == "steer" else "follow-up"
        if getattr(event, "phase", "delivered") == "queued":
            self.note(f"queued {kind}: {event.text}")
        else:
            self._line(f"{self._bold('» you')} ({kind}): {terminal_safe(event.text)}")

    def _on_finish(self, event: Any) -> None:
        self.status.usage = getattr(event, "usage", None) or self.status.usage
        self.status.set_state(*finish_state(getattr(event, "reason", "completed")))
        self._line(self._dim(self.status.summary()))

    def _args(self, args: Any) -> None:
        """Every line of the call: an approval must not hide its tail."""
        for label, text, _language in fmt.args_sections(args, limit=None):
            self._line(self._dim(f"  {label}:"))
            for line in text.split("\n"):
                self._line(f"    {line}")

    def _stream(self, mode: str, delta: str) -> None:
        # Revealed character by character: a sequence split across deltas is caught at its ESC.
        delta = reveal(delta)
        if not delta:
            return
        if self._mode != mode:
            self._end_stream()
            self._mode = mode
            if mode == "thinking":
                self.out.write(self._dim("thinking: "))
        self.out.write(self._dim(delta) if mode == "thinking" else delta)
        self._at_line_start = delta.endswith("\n")
        self.out.flush()

    def _end_stream(self) -> None:
        if self._mode and not self._at_line_start:
            self.out.write("\n")
            self._at_line_start = True
        self._mode = ""

    def _line(self, text: str) -> None:
        self._end_stream()
        self.out.write(text + "\n")

    def _color(self, code: str, text: str) -> str:
        # Colors only on a real terminal: captured output (tests, pipes) stays plain.
        isatty = getattr(self.out, "isatty", None)
        return f"\x1b[{code}m{text}\x1b[0m" if isatty is not None and isatty() else text

    def _dim(self, text: str) -> str:
        return self._color("2", text)

    def _bold(self, text: str) -> str:
        return self._color("1", text)
