"""Streamed Markdown as a column of HTML pieces, of which only the last one is ever updated.

`append()` only buffers (it runs for every delta); `render()` — called by the panel's coalescer —
moves the buffer into the live piece. When the live piece's source reaches `piece_limit`
characters it is cut (see `markdown_split`): the part before the cut is rendered one last time
and frozen, the rest starts a new live piece. Each update therefore resends at most about
`piece_limit` characters, and the bytes sent for an answer grow linearly with its length.
"""

from __future__ import annotations

import ipywidgets as W

from jupyter_agent.notebook.panel.column import GrowingColumn
from jupyter_agent.notebook.panel.markdown import render_markdown
from jupyter_agent.notebook.panel.markdown_split import Cut, find_cut

# Why ~500: an update resends the live piece (≤ this many characters) and a new piece costs
# ~700 bytes to open and attach; around 500 the two costs balance (benchmarks/panel.py).
PIECE_LIMIT = 500


class MarkdownStream:
    """One run of assistant (or thinking) text rendered as Markdown while it streams."""

    def __init__(
        self,
        *,
        css_class: str = "ja-stream",
        layout: W.Layout | None = None,
        style: W.Widget | None = None,
        piece_limit: int = PIECE_LIMIT,
    ) -> None:
        self._column = GrowingColumn(css_class=css_class, layout=layout)
        self.widget = self._column.root
        # Pieces share one layout and one style: otherwise each piece opens two more widgets.
        self._shared = {"layout": layout, "style": style}
        self._piece_limit = piece_limit
        self._pending: list[str] = []
        self._pending_chars = 0
        self._source = ""  # the live piece's source, starting with its reopen prefix
        self._keep = 0  # length of that prefix
        self._seam_before = ""  # how the live piece joins the piece before it
        self._live: W.HTML | None = None
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
    def pieces(self) -> list[W.Widget]:
        return self._column.widgets()

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
        if len(self._source) > self._keep:
            self._show(self._piece_html(self._source, after=""))

    def close(self) -> None:
        """Render what is left; the stream takes no more text."""
        self.render()
        self.closed = True

    def _freeze(self, cut: Cut) -> None:
        frozen = self._source[: cut.at]
        self.frozen_sources.append(frozen[self._keep :])
        if cut.close:
            frozen = frozen + ("" if frozen.endswith("\n") else "\n") + cut.close
        self._show(self._piece_html(frozen, after=cut.seam))
        self._live = None
        self._source = cut.reopen + self._source[cut.at :]
        self._keep = len(cut.reopen)
        self._seam_before = cut.seam

    def _show(self, value: str) -> None:
        if self._live is None:
            kwargs = {name: shared for name, shared in self._shared.items() if shared is not None}
            self._live = W.HTML(value=value, **kwargs)
            self._column.append(self._live, keep_with_previous=self._seam_before == "text")
        elif self._live.value != value:
            self._live.value = value

    def _piece_html(self, source: str, *, after: str) -> str:
        classes = ["ja-md"]
        if self._seam_before:
            classes.append(f"ja-seam-{self._seam_before}-before")
        if after:
            classes.append(f"ja-seam-{after}-after")
        # A paragraph split at a word gap flows on after a space.
        lead = " " if self._seam_before == "text" else ""
        return f'<div class="{" ".join(classes)}">{lead}{render_markdown(source)}</div>'
