"""Memory changes kept beside the notes, so ``%agent memory undo NAME`` works after a reopen.

The panel's Undo buttons go when a turn ends (a saved notebook keeps no widgets), and a kernel
restart forgets the changes themselves. Each change is appended to ``.changes.jsonl`` in the
memory folder (the note's text before and after); undo restores the last recorded change of a
note only if the note still reads as that change left it.
"""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_agent.features.memory.store import MemoryChange, MemoryStore

LOG_NAME = ".changes.jsonl"


class MemoryUndoLog:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    @property
    def path(self) -> Path:
        return self.store.folder / LOG_NAME

    def record(self, *changes: MemoryChange) -> None:
        if not changes:
            return
        self.store.folder.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as log:
            for change in changes:
                log.write(json.dumps({"name": change.name, "before": change.before, "after": change.after}) + "\n")

    def last_change(self, name: str) -> MemoryChange | None:
        found = None
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return None
        for line in lines:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn line from a crash mid-write
            if isinstance(entry, dict) and entry.get("name") == name:
                found = MemoryChange(self.store, name, entry.get("before"), entry.get("after"))
        return found

    def undo(self, name: str) -> str:
        """What happened, for the user; raises ``LookupError`` when there is nothing to undo."""
        change = self.last_change(name)
        if change is None:
            raise LookupError(f"no recorded change of the memory note {name!r} to undo")
        if not change.undo():
            raise LookupError(f"the memory note {name!r} changed again since the agent's change: not undone")
        # The undo is itself a change: undoing again puts the agent's version back.
        self.record(MemoryChange(self.store, name, change.after, change.before))
        return f"Undid the agent's change of the memory note `{name}` ({change.kind})."
