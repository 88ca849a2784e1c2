"""What memory saved during a turn, one row per change, each with an Undo button.

A click calls ``change.undo()`` (which refuses when the note changed again since) and says in
the row whether it worked. Clicks may arrive on a kernel subshell thread: undo only touches
files and this row's widgets.
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible

UNDONE = "undone"
NOT_UNDONE = "not undone: the note changed again since"


def change_html(change: Any) -> str:
    verb = {"created": "saved", "updated": "updated", "deleted": "deleted"}.get(change.kind, change.kind)
    summary = f" — {escape(change.summary)}" if change.kind != "deleted" else ""
    return f"<b>Memory</b> {verb} <code>{escape(change.name)}</code>{summary}"


class MemoryRow:
    def __init__(self, change: Any, shared: Shared) -> None:
        self.change = change
        self.label = shared.html(change_html(change), "ja-memory-text")
        self.button = shared.button("Undo", icon="undo", tooltip=f"Undo this memory change ({change.name})")
        self.button.on_click(lambda _button: self.undo())
        self.widget = shared.hbox([self.label, self.button], "ja-memory-row")
        self.outcome = ""

    def undo(self) -> bool:
        try:
            undone = bool(self.change.undo())
            self.outcome = UNDONE if undone else NOT_UNDONE
        except OSError as error:
            undone = False
            self.outcome = f"not undone: {error}"
        self.button.disabled = True
        self.button.description = "Undone" if undone else "Undo failed"
        self.label.value = f'{change_html(self.change)} <span class="ja-note">({escape(self.outcome)})</span>'
        return undone


class MemoryView:
    def __init__(self, shared: Shared | None = None) -> None:
        self._shared = shared or Shared()
        self.rows: list[MemoryRow] = []
        self.widget = self._shared.vbox([], "ja-memory", HIDDEN)

    def add(self, *changes: Any) -> None:
        rows = [MemoryRow(change, self._shared) for change in changes]
        if not rows:
            return
        self.rows += rows
        self.widget.children = (*self.widget.children, *(row.widget for row in rows))
        set_visible(self.widget, True)


__all__ = ["MemoryRow", "MemoryView", "NOT_UNDONE", "UNDONE", "change_html"]
