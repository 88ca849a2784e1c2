"""Terminal IPython: the run as plain text on stdout, approvals asked with `allow? [y/n/a/A]`.

Text deltas are written as they come (a terminal has no comm channel to flood). `ask()` reads
the answer on the event loop (``terminal_input``), so it keeps running meanwhile and Ctrl-C leaves
nothing reading the terminal, after showing every line of the call. Nothing a model or a tool wrote reaches the terminal raw: escape
sequences are removed and invisible characters revealed, so no output can redraw the prompt.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import anyio.to_thread

from jupyter_agent.loop.types import ApprovalPreview
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.status import RunStatus, finish_state
from jupyter_agent.notebook.panel.terminal_input import read_line
from jupyter_agent.notebook.panel.visible import reveal, terminal_safe
from jupyter_agent.notebook.renderer import EventRouter
from jupyter_agent.notebook.views import TextSurface, Views

if TYPE_CHECKING:
    from jupyter_agent.runtime.events import RunEvent, ToolCallEvent, ToolResultEvent, UserMessageEvent
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
        self.views: Views[TextSurface] = Views("text", self)

    def _dispatch(self, event: RunEvent) -> None:
        match event.type:
            case "run_start":
                self.status.start(event.step_budget)
                self.status.set_state("running")
            case "step_start":
                self.status.step = event.step
            case "text_delta":
                self._stream("text", event.delta)
            case "thinking_delta":
                self._stream("thinking", event.delta)
            case "tool_call":
                self._on_tool_call(event)
            case "tool_result":
                self._on_tool_result(event)
            case "step_finish":
                self.status.usage = event.usage or self.status.usage
            case "user_message":
                self._on_user_message(event)
            case "compacted":
                self.note(f"context compacted: {event.dropped_messages} earlier messages summarized")
            case "finish":
                self.status.usage = event.usage or self.status.usage
                self.status.set_state(*finish_state(event.reason))
                self._line(self._dim(self.status.summary()))
            case "error":
                self.show_error(fmt.error_text(event.error))

    @property
    def out(self) -> TextIO:
        # Resolved late: IPython and pytest swap sys.stdout after construction.
        return self._out or sys.stdout

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Ask on the terminal until the answer is y, n, a or A; end of input denies."""
        name = fmt.field(request, "tool_name", "tool")
        self._line(f"{self._bold('?')} {name} wants to run:")
        preview = fmt.field(request, "preview", None)  # the tool's own account of the call
        if isinstance(preview, ApprovalPreview):
            for line in preview.text.splitlines():
                self._line(f"  {terminal_safe(line)}")
        if not (isinstance(preview, ApprovalPreview) and preview.complete):
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

    # The TextSurface the features' views write through (``notebook/views.py``).

    def line(self, text: str) -> None:
        self._line(text)

    def dim(self, text: str) -> str:
        return self._dim(text)

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        summary = fmt.args_summary(event.args)
        self._line(f"{self._bold('▸ ' + event.name)} {self._dim(summary)}")

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        content = event.shown
        lines = terminal_safe(fmt.output_text(content)).split("\n")
        lines = lines[:-1] if lines and not lines[-1] else lines
        mark = self._color("31", "✗") if event.is_error else self._color("32", "✓")
        self._line(f"  {mark} {event.name}")
        for line in lines[:OUTPUT_LINES]:
            self._line(f"  │ {line}")
        if len(lines) > OUTPUT_LINES:
            self._line(self._dim(f"  │ … {len(lines) - OUTPUT_LINES} more lines"))
        pictures = fmt.images(content)
        if pictures:
            self._line(self._dim(f"  │ [{len(pictures)} image(s) not shown in a terminal]"))
        if event.withheld:
            self._line(self._dim(f"  │ [{event.withheld}]"))

    def _on_user_message(self, event: UserMessageEvent) -> None:
        kind = "steer" if event.delivery == "steer" else "follow-up"
        if event.phase == "queued":
            self.note(f"queued {kind}: {event.text}")
        else:
            self._line(f"{self._bold('» you')} ({kind}): {terminal_safe(event.text)}")

    def _args(self, args: object) -> None:
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
