"""One tool call as a collapsible card: title with status, arguments, output, images.

The card body (arguments and output text) folds away in an Accordion; images stay visible below
it, because a plot is usually the result the user asked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from jupyter_agent.loop.abort import was_cancelled, was_stopped_while_running
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.nodes import HTML, Image, Node, VBox
from jupyter_agent.notebook.panel.shared import Shared

LIVE_DISPLAY_CHARS = 20_000
# Said while code runs: the kernel's Interrupt reaches it wherever a Stop click cannot.
LIVE_LABEL = "output so far (running; ■ Interrupt stops it)"


def code_html(text: str, language: str = "", *, css: str = "ja-code") -> str:
    lang = f' data-lang="{escape(language)}"' if language else ""
    return f'<pre class="{css}"{lang}>{escape(text)}</pre>'


def args_html(args: object, limit: int | None = fmt.ARGS_DISPLAY_CHARS) -> str:
    """Arguments as labelled code blocks (long strings) and pretty JSON (the rest)."""
    parts = []
    for label, text, language in fmt.args_sections(args, limit):
        parts.append(f'<div class="ja-label">{escape(label)}</div>{code_html(text, language)}')
    return "".join(parts)


class ToolCard:
    """The card of one tool call; `finish()` fills in its result."""

    def __init__(
        self,
        tool_call_id: str,
        name: str,
        args: object,
        *,
        clock: Callable[[], float] = time.monotonic,
        shared: Shared | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.tool_call_id = tool_call_id
        self.time_limit = time_limit  # seconds the call may run: the title counts them down
        self.name = name
        self.args = args
        self.status = "running…"
        self.finished = False
        self.is_error = False
        self._clock = clock
        self._started = clock()
        self._shared = shared or Shared()
        self._body = self._shared.vbox([self._shared.html(args_html(args))], "ja-tool-body")
        self._accordion = self._shared.accordion(self._body, self._title())
        self._images: VBox | None = None
        self._nested: VBox | None = None
        self._live: HTML | None = None
        self._live_text = ""
        self.widget = self._shared.vbox([self._accordion], "ja-tool")

    @property
    def title(self) -> str:
        return str(self._accordion.titles[0])

    @property
    def expanded(self) -> bool:
        return bool(self._accordion.selected_index == 0)

    @property
    def image_widgets(self) -> list[Image]:
        children = self._images.children if self._images is not None else ()
        return [child for child in children if isinstance(child, Image)]

    @property
    def nested_widgets(self) -> list[Node]:
        return list(self._nested.children) if self._nested is not None else []

    @property
    def output_html(self) -> str | None:
        output = self._body.children[1] if len(self._body.children) > 1 else None
        return output.value if isinstance(output, HTML) else None

    def set_status(self, status: str) -> None:
        """Replace the status shown in the title (e.g. "waiting for approval")."""
        if not self.finished:
            self.status = status
            self._accordion.titles = (self._title(),)

    def running(self) -> None:
        """Approved: the call runs from now, and its duration counts from here, not from the approval wait."""
        self._started = self._clock()
        self.set_status("running…")

    def refresh_clock(self) -> None:
        """Moves the countdown of a running call with a time limit (the panel's ticks call it)."""
        if not self.finished and self.time_limit is not None:
            title = self._title()
            if title != self._accordion.titles[0]:
                self._accordion.titles = (title,)

    def time_left(self) -> str:
        """The countdown ("9:58 left") while a call with a time limit runs; "" otherwise."""
        if self.time_limit is None or self.finished or not self.status.startswith("running"):
            return ""
        left = max(0, int(self.time_limit - (self._clock() - self._started) + 0.999))
        return f"{left // 60}:{left % 60:02d} left" if left >= 60 else f"{left} s left"

    def show_live(self, text: str) -> None:
        """Output of the call while it still runs; the result replaces it (see ``finish``)."""
        if self.finished or not text:
            return
        # The latest output matters while code runs: keep its tail.
        self._live_text = (self._live_text + text)[-LIVE_DISPLAY_CHARS:]
        html = f'<div class="ja-label">{LIVE_LABEL}</div>{code_html(self._live_text)}'
        if self._live is None:
            self._live = self._shared.html(html)
            self._body.children = (*self._body.children, self._live)
        else:
            self._live.value = html

    def finish(
        self,
        content: fmt.ToolContent,
        is_error: bool = False,
        cancelled: bool = False,
        details: object = None,
        withheld: str = "",
    ) -> None:
        """Show the result: output text in the body, images below the card.
        ``cancelled`` (or the result's ``details`` say so): the run was stopped before or while the call ran,
        which is no tool error; details of a call stopped in its work (Stop, the kernel's Interrupt) read "stopped".
        ``withheld``: what the model's copy left out under the data policy (``content`` is the user's)."""
        stopped = was_stopped_while_running(details)
        cancelled = cancelled or was_cancelled(details) or self.status == "cancelled"  # or its approval was cancelled
        if self._live is not None:
            self._body.children = tuple(child for child in self._body.children if child is not self._live)
            self._live = None
        self.finished = True
        self.is_error = bool(is_error) and not cancelled
        took = fmt.elapsed(self._clock() - self._started)
        denied = self.is_error and "denied" in fmt.output_text(content).lower()[:200]
        ended = f"stopped · {took}" if stopped else "cancelled"
        self.status = ended if cancelled else "denied" if denied else f"error · {took}" if self.is_error else f"done · {took}"
        text = fmt.truncate(fmt.output_text(content), fmt.OUTPUT_DISPLAY_CHARS)
        css = "ja-code ja-error-text" if self.is_error else "ja-code"
        label = ("output before it stopped" if stopped else "cancelled") if cancelled else "error" if self.is_error else "output"
        if text:
            output = self._shared.html(f'<div class="ja-label">{label}</div>{code_html(text, css=css)}')
            self._body.children = (*self._body.children, output)
        if withheld:
            note = self._shared.html(f'<div class="ja-label ja-withheld">🔒 {escape(withheld)}</div>')
            self._body.children = (*self._body.children, note)
        pictures = [self._shared.image(data, mime.split("/")[-1] or "png") for data, mime in fmt.images(content)]
        if pictures:
            self._images = self._shared.vbox(pictures, "ja-tool-images")
            self._arrange()
        self._accordion.titles = (self._title(),)

    def nest(self, widget: Node) -> None:
        """Show ``widget`` (a sub-agent's card) under the card, outside its folded body."""
        if self._nested is None:
            self._nested = self._shared.vbox([widget], "ja-tool-nested")
            self._arrange()
        else:
            self._nested.children = (*self._nested.children, widget)

    def _arrange(self) -> None:
        parts = (self._accordion, self._nested, self._images)
        self.widget.children = tuple(part for part in parts if part is not None)

    def _title(self) -> str:
        # Accordion titles are plain text: the status is spelled out.
        summary = fmt.args_summary(self.args)
        mark = (
            "■"
            if self.status == "cancelled" or self.status.startswith("stopped")
            else "✗"
            if self.is_error
            else "✓"
            if self.finished
            else "⋯"
        )
        head = f"{mark} {self.name}"
        left = self.time_left()
        status = f"{self.status} {left}" if left else self.status
        return f"{head}: {summary} — {status}" if summary else f"{head} — {status}"


def refresh_clocks(cards: Iterable[ToolCard]) -> None:
    """Moves the countdowns of the running calls with a time limit (at each tick of the footer's clock)."""
    for card in cards:
        card.refresh_clock()
