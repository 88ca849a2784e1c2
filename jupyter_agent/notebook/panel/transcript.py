"""Streamed Markdown as a column of HTML pieces, of which only the last one is ever updated.

`append()` only buffers (it runs for every delta); `render()` — called by the panel's coalescer —
moves the buffer into the live piece. An update of the live piece sends only what changed at the
end of its HTML (``nodes.HTML``), but the piece is rendered again whole: when its source reaches
`piece_limit` characters it is cut (see `markdown_split`), the part before the cut rendered one
last time and frozen, the rest starting a new live piece, so rendering costs stay bounded too.
"""

from __future__ import annotations

from jupyter_agent.notebook.panel.markdown import provisionally_closed, render_markdown
from jupyter_agent.notebook.panel.markdown_split import Cut, find_cut
from jupyter_agent.notebook.panel.nodes import HTML
from jupyter_agent.notebook.panel.shared import Shared

# Why 1 500: a new piece costs ~40 bytes to create and attach; the live piece is rendered again at
# each update (~0.2 ms for 1 500 characters of Markdown).
PIECE_LIMIT = 1_500


class MarkdownStream:
    """One run of assistant (or thinking) text rendered as Markdown while it streams."""

    def __init__(
        self,
        *,
        css_class: str = "ja-stream",
        shared: Shared | None = None,
        piece_limit: int = PIECE_LIMIT,
    ) -> None:
        self._shared = shared or Shared()
        self.widget = self._shared.vbox((), css_class)
        self._piece_limit = piece_limit
        self._pending: list[str] = []
        self._pending_chars = 0
        self._source = ""  # the live piece's source, starting with its reopen prefix
        self._keep = 0  # length of that prefix
        self._seam_before = ""  # how the live piece joins the piece before it
        self._live: HTML | None = None
        self._text: list[str] = []
        self.frozen_sources: list[str] = []  # the text each frozen piece covers, in order
        self.closed = False

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    @property
    def pending_chars(self) -> int:
        return self._pending_chars

    @property
    def live_chars(self) -> int:
        """Source characters the next render resends (the live piece with the pending text)."""
        return len(self._source) + self._pending_chars

    @property
    def text(self) -> str:
        """Everything appended so far."""
        return "".join(self._text) + "".join(self._pending)

    @property
    def pieces(self) -> list[HTML]:
        return [piece for piece in self.widget.children if isinstance(piece, HTML)]

    @property
    def live_source(self) -> str:
        """The text shown by the live piece (after its reopen prefix)."""
        return self._source[self._keep :]

    def append(self, delta: str) -> None:
        if delta:
            self._pending.append(delta)
            self._pending_chars += len(delta)

    def render(self) -> None:
        """Show everything appended so far."""
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        self._pending_chars = 0
        self._text.append(chunk)
        self._source += chunk
        while (cut := find_cut(self._source, self._piece_limit, keep=self._keep)) is not None:
            self._freeze(cut)
        self._show_live()

    def close(self) -> None:
        """Render what is left, as it is (no markup closed for it any more); no more text is taken."""
        self.closed = True
        if self._pending:
            self.render()
        elif self._live is not None:
            self._show_live()

    def _show_live(self) -> None:
        if len(self._source) > self._keep:
            # While it streams, markup the text opened and has not closed yet renders as if closed.
            self._show(self._piece_html(self._source if self.closed else provisionally_closed(self._source)))

    def _freeze(self, cut: Cut) -> None:
        frozen = self._source[: cut.at]
        self.frozen_sources.append(frozen[self._keep :])
        if cut.close:
            frozen = frozen + ("" if frozen.endswith("\n") else "\n") + cut.close
        self._show(self._piece_html(frozen), after=cut.seam)
        self._live = None
        self._source = cut.reopen + self._source[cut.at :]
        self._keep = len(cut.reopen)
        self._seam_before = cut.seam

    def _show(self, value: str, *, after: str = "") -> None:
        classes = ["ja-md"]
        if self._seam_before:
            classes.append(f"ja-seam-{self._seam_before}-before")
        if after:
            classes.append(f"ja-seam-{after}-after")
        if self._live is None:
            self._live = self._shared.html(value, *classes)
            self.widget.children = (*self.widget.children, self._live)
            return
        # Classes travel apart from the value: the value's unchanged start is never resent.
        self._live._dom_classes = tuple(classes)
        self._live.value = value

    def _piece_html(self, source: str) -> str:
        # A paragraph split at a word gap flows on after a space.
        lead = " " if self._seam_before == "text" else ""
        return f"{lead}{render_markdown(source)}"
