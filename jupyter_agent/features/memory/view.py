"""How memory is shown, and ``%agent memory [show NAME | delete NAME | undo NAME]``.

* the panel: what memory saved during the turn, one row per change below the transcript, each
  with an Undo button. A click calls ``change.undo()`` (which refuses when the note changed again
  since) and says in the row whether it worked. Clicks may arrive on a kernel subshell thread:
  undo only touches files and this row's nodes;
* the static rendering and the terminal: one note per change, with how to undo it.

The subcommand reads the files beside the notebook, so it works after a kernel restart and
whether or not memory is turned on for turns (the notes stay until deleted).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from jupyter_agent.features.memory.feature import MemorySavedEvent
from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryChange, MemoryStore
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import Subcommand, arg
from jupyter_agent.notebook.views import BaseView, FeatureViews, PanelSurface, StaticSurface, TextSurface

if TYPE_CHECKING:
    import argparse

    from jupyter_agent.features.feature import FeatureEvent
    from jupyter_agent.notebook.magics import AgentMagics

MEMORY_OFF_HINT = "Turn memory on with `%%agent --memory` or `%config AgentMagics.memory = True`."

UNDONE = "undone"
NOT_UNDONE = "not undone: the note changed again since"


def change_html(change: MemoryChange) -> str:
    verb = {"created": "saved", "updated": "updated", "deleted": "deleted"}.get(change.kind, change.kind)
    summary = f" — {escape(change.summary)}" if change.kind != "deleted" else ""
    return f"<b>Memory</b> {verb} <code>{escape(change.name)}</code>{summary}"


class MemoryRow:
    def __init__(self, change: MemoryChange, shared: Shared) -> None:
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

    def add(self, *changes: MemoryChange) -> None:
        rows = [MemoryRow(change, self._shared) for change in changes]
        if not rows:
            return
        self.rows += rows
        self.widget.children = (*self.widget.children, *(row.widget for row in rows))
        set_visible(self.widget, True)


class MemoryPanelView(BaseView[PanelSurface]):
    """Made with the panel; its rows appear below the transcript with the first change."""

    def __init__(self, surface: PanelSurface) -> None:
        super().__init__(surface)
        self.view: MemoryView | None = None

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, MemorySavedEvent)
        if not event.changes:
            return
        if self.view is None:
            self.view = MemoryView(self.surface.shared)
            self.surface.place(self.view.widget, "bottom")
        self.view.add(*event.changes)


class MemoryStaticView(BaseView[StaticSurface]):
    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, MemorySavedEvent)
        for change in event.changes:
            self.surface.note(f"Memory {change.kind}: {change.name} — {change.summary} (undo: %agent memory undo {change.name})")


class MemoryTextView(BaseView[TextSurface]):
    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, MemorySavedEvent)
        for change in event.changes:
            undo = f"; %agent memory delete {change.name} removes it" if change.kind == "created" else ""
            self.surface.note(f"memory {change.kind}: {change.name} — {change.summary}{undo}")


def memory_command(sessions_folder: Path, tokens: list[str], usage: str) -> Report:
    store = MemoryStore(Path(sessions_folder) / MEMORY_FOLDER)
    action, rest = (tokens[0], tokens[1:]) if tokens else ("list", [])
    if action == "list" and not rest:
        return _listing(store)
    if action == "undo" and len(rest) == 1:
        return _undo(store, rest[0])
    if action in ("show", "delete") and len(rest) == 1:
        return _show(store, rest[0]) if action == "show" else _delete(store, rest[0])
    if action in ("show", "delete", "undo"):
        raise UsageError(f"%agent memory {action} takes one note name\n{usage}")
    raise UsageError(
        f"unknown memory action {action!r}: use %agent memory, memory show NAME, memory delete NAME or memory undo NAME\n{usage}"
    )


def _listing(store: MemoryStore) -> Report:
    facts = store.list()
    if not facts:
        return Report(f"No memory notes yet. {MEMORY_OFF_HINT}", f"No memory notes yet. {_plain(MEMORY_OFF_HINT)}")
    rows = ["| note | summary | updated |", "|---|---|---|"]
    rows += [f"| `{fact.name}` | {_cell(fact.summary)} | {fact.updated[:16] or '-'} |" for fact in facts]
    lines = [f"{fact.name}: {fact.summary}" for fact in facts]
    where = f"\n\n*{len(facts)} note{'s' if len(facts) != 1 else ''} in `{store.folder}`*"
    return Report("\n".join(rows) + where, "\n".join(lines))


def _show(store: MemoryStore, name: str) -> Report:
    fact = store.read(name)
    if fact is None:
        raise UsageError(_missing(store, name))
    text = f"{fact.name}: {fact.summary}\n(updated {fact.updated or 'unknown'})\n\n{fact.content}"
    return Report(f"**`{fact.name}`**: {_cell(fact.summary)}\n\n{fact.content}", text)


def _delete(store: MemoryStore, name: str) -> Report:
    change = store.delete(name)
    if change is None:
        raise UsageError(_missing(store, name))
    return Report(f"Deleted the memory note `{change.name}`.")


def _undo(store: MemoryStore, name: str) -> Report:
    from jupyter_agent.features.memory.undo_log import MemoryUndoLog

    try:
        return Report(MemoryUndoLog(store).undo(name))
    except LookupError as error:
        raise UsageError(str(error)) from None


def _missing(store: MemoryStore, name: str) -> str:
    names = store.names()
    return f"no memory note named {name!r}; notes: {', '.join(names) if names else 'none yet'}"


def _cell(text: str) -> str:
    # A summary is one line of user-visible text inside a Markdown table.
    return text.replace("|", "\\|")


def _plain(markdown: str) -> str:
    return markdown.replace("`", "")


def _memory(magics: AgentMagics, args: argparse.Namespace) -> Report:
    tokens = [args.action, *args.names] if args.action else []
    return memory_command(magics.sessions.folder, tokens, MEMORY_COMMAND.parser().format_usage().strip())


MEMORY_COMMAND = Subcommand(
    "memory",
    "The notebook's memory notes: list them, show, delete or undo one.",
    _memory,
    (
        arg("action", nargs="?", metavar="list|show|delete|undo", help="what to do (default: list)"),
        arg("names", nargs="*", metavar="NAME", help="the note"),
    ),
)

VIEWS = FeatureViews(
    events=("memory_saved",),
    panel=MemoryPanelView,
    static=MemoryStaticView,
    text=MemoryTextView,
    commands=(MEMORY_COMMAND,),
)

__all__ = ["MEMORY_OFF_HINT", "NOT_UNDONE", "UNDONE", "VIEWS", "MemoryRow", "MemoryView", "change_html", "memory_command"]
