"""Capturing what code run through an IPython shell prints and displays, through its own API.

For the duration of one run the shell's display publisher, display hook and traceback printer,
and ``sys.stdout``/``sys.stderr``, are swapped for objects that write into an ``OutputSink``;
everything is restored in ``finally``. The stand-ins forward unknown attributes to the objects
they replace, so kernel code that reaches for e.g. ``display_pub.session`` keeps working.
No IPython import: the shell passed in is used as a duck type.
"""

from __future__ import annotations

import base64
import io
import re
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from jupyter_agent.loop.abort import RunCancelled
from jupyter_agent.messages import ImageContent
from jupyter_agent.tools.caps import HeadTailBuffer, OutputCaps, human_size, truncate_head_tail
from jupyter_agent.tools.disclosure import Disclosure
from jupyter_agent.tools.figures import figure_png, is_figure
from jupyter_agent.tools.tracebacks import without_own_frames

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\))")
_MISSING = object()


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


class OutputSink:
    """Text in the order it was produced (capped head and tail) and the images, separately: the
    user's copy. ``disclosure``, when given, is told each piece too and makes the model's copy
    under the data policy (see ``tools/disclosure.py``); ``cell_name`` names a traceback's files."""

    def __init__(
        self,
        caps: OutputCaps,
        on_text: Callable[[str], None] | None = None,
        *,
        disclosure: Disclosure | None = None,
        cell_name: Callable[[str], str | None] = lambda _: None,
    ) -> None:
        self.caps = caps
        # Told every piece of text as it is produced (a live view while the code still runs).
        self.on_text = on_text
        self.disclosure = disclosure
        self.cell_name = cell_name
        self.text: HeadTailBuffer[str] = HeadTailBuffer("", caps.capture_bytes)
        self.images: list[ImageContent] = []
        self.notes: list[str] = []
        self.traceback: str | None = None
        # Figures already returned as the last value are not returned again by the figure scan.
        self.rendered_figures: set[int] = set()

    def write(self, text: str) -> None:
        """Printed text (stdout and stderr)."""
        self._show(text)
        if self.disclosure is not None:
            self.disclosure.printed(text)

    def _show(self, text: str) -> None:
        self.text.write(text)
        if self.on_text is not None:
            self.on_text(text)

    def add_bundle(self, data: dict, prefix: str = "", value: Any = _MISSING, reformat: Any = None) -> None:
        """A display bundle; ``value``: the last expression's value it formats (``reformat`` formats another)."""
        png = data.get("image/png")
        if png is not None:
            self.add_png(png)
        plain = data.get("text/plain")
        if plain is not None:
            # A table's header is its first line: "Out:" on a line of its own keeps the columns aligned.
            self._show(f"{prefix.rstrip()}\n{plain}\n" if prefix and "\n" in plain else f"{prefix}{plain}\n")
        elif png is None:
            self._show(f"{prefix}[display of {', '.join(sorted(data)) or 'nothing'}; no text form]\n")
        if self.disclosure is not None:
            if value is not _MISSING:
                self.disclosure.value(value, str(plain or ""), reformat or (lambda _other: None))
            elif plain is not None or png is None:
                self.disclosure.display(str(plain or ""), sorted(data))

    def add_png(self, png: bytes | str) -> None:
        # IPython's formatters give bytes; display bundles that went through JSON give base64 text.
        encoded = base64.b64encode(png).decode("ascii") if isinstance(png, bytes) else png
        if len(self.images) >= self.caps.max_images:
            self.notes.append("[More images were produced than can be returned; only the first ones are included.]")
        elif len(encoded) * 3 // 4 > self.caps.max_image_bytes:
            self.notes.append(f"[An image of {human_size(len(encoded) * 3 // 4)} was too large to return.]")
        else:
            self.images.append(ImageContent(data=encoded, mime_type="image/png"))
            if self.disclosure is not None:
                self.disclosure.image(self.images[-1])

    def show_traceback(self, etype: Any, evalue: Any, stb: list[str]) -> None:
        if isinstance(evalue, (KeyboardInterrupt, RunCancelled)):
            return  # an interrupt is no failure of the code: the result says it was stopped, with no frames of ours
        entries = [strip_ansi(str(entry)) for entry in stb] if isinstance(stb, list) else [strip_ansi(str(stb))]
        text = "\n".join(without_own_frames(entries))
        self.traceback = text
        self._show(text + "\n")
        if self.disclosure is not None:
            error = evalue if isinstance(evalue, BaseException) else None
            self.disclosure.traceback(error, text, self.cell_name)

    def render(self) -> str:
        text = strip_ansi(self.text.value()).rstrip("\n")
        text = truncate_head_tail(text, self.caps, omitted_before=self.text.omitted)
        return "\n".join([text, *dict.fromkeys(self.notes)]).strip("\n")


class CapturedStream(io.TextIOBase):
    """A text stream for ``sys.stdout``/``sys.stderr`` that writes into the sink."""

    def __init__(self, sink: OutputSink, name: str) -> None:
        super().__init__()
        self._sink = sink
        self.name = name

    @property
    def encoding(self) -> str:  # type: ignore[override]  # read-only here: the sink decodes nothing
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._sink.write(text)
        return len(text)


class _Forwarding:
    def __init__(self, original: Any, sink: OutputSink) -> None:
        self._original = original
        self._sink = sink

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


class CapturingPublisher(_Forwarding):
    """Stands in for ``shell.display_pub``: ``display()`` calls land in the sink."""

    is_publishing = False

    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs) -> None:
        self._sink.add_bundle(dict(data or {}))

    def clear_output(self, wait: bool = False) -> None:
        pass  # nothing was shown to the user, so there is nothing to clear


class CapturingDisplayHook(_Forwarding):
    """Stands in for ``shell.displayhook`` (and ``sys.displayhook``): the last expression's value."""

    def __init__(self, original: Any, sink: OutputSink, shell: Any, quiet: bool) -> None:
        super().__init__(original, sink)
        self._shell = shell
        self._quiet = quiet
        self.is_active = False
        self.exec_result = None

    def __call__(self, value: Any) -> None:
        if value is None or self._quiet:
            return
        if self.exec_result is not None:
            self.exec_result.result = value
        self.is_active = True
        try:
            data, _ = self._shell.display_formatter.format(value, include={"text/plain", "image/png"})
        except Exception as error:  # noqa: BLE001 - a broken repr is output, not a tool failure
            data = {"text/plain": f"<{type(value).__name__}: repr failed with {type(error).__name__}: {error}>"}
        finally:
            self.is_active = False
        if "image/png" not in data and is_figure(value):
            data = {**data, "image/png": figure_png(value)}
            self._sink.rendered_figures.add(id(value))
        elif "image/png" not in data:
            # Terminal IPython disables its PNG formatter; a vision model still wants the image.
            png = _own_png(value)
            if png is not None:
                data = {**data, "image/png": png}
        self._sink.add_bundle(data, prefix="Out: ", value=value, reformat=self._plain_text)

    def _plain_text(self, other: Any) -> str | None:
        try:
            data, _ = self._shell.display_formatter.format(other, include={"text/plain"})
        except Exception:  # noqa: BLE001 - a broken repr: the model's copy falls back to the text
            return None
        return data.get("text/plain")


def _own_png(value: Any) -> bytes | None:
    method = getattr(type(value), "_repr_png_", None)
    if method is None:
        return None
    try:
        png = method(value)
    except Exception:  # noqa: BLE001 - a broken repr just means no image
        return None
    return bytes(png) if isinstance(png, (bytes, bytearray)) else None


@contextmanager
def captured_output(shell: Any, sink: OutputSink, quiet: bool = False) -> Iterator[None]:
    """Routes the shell's output into ``sink`` for the duration of the block."""
    trap = getattr(shell, "display_trap", None)
    saved_hook = getattr(trap, "hook", None)
    saved = (sys.stdout, sys.stderr, sys.displayhook, shell.display_pub, shell.displayhook)
    saved_traceback = vars(shell).get("_showtraceback", _MISSING)
    hook = CapturingDisplayHook(shell.displayhook, sink, shell, quiet)
    try:
        sys.stdout = CapturedStream(sink, "<stdout>")
        sys.stderr = CapturedStream(sink, "<stderr>")
        shell.display_pub = CapturingPublisher(shell.display_pub, sink)
        shell.displayhook = hook
        if trap is not None:
            trap.hook = hook
        sys.displayhook = hook
        # An instance attribute shadows the method for this run only (restored below).
        shell._showtraceback = sink.show_traceback
        yield
    finally:
        sys.stdout, sys.stderr, sys.displayhook, shell.display_pub, shell.displayhook = saved
        if trap is not None:
            trap.hook = saved_hook
        if saved_traceback is _MISSING:
            vars(shell).pop("_showtraceback", None)
        else:
            shell._showtraceback = saved_traceback
