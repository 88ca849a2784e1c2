"""What the agent has read of the notebook: a digest of each cell's source, for staleness checks.

An edit of a cell the agent read is refused when the cell changed since (the user typed into it,
or another edit landed), the same rule the file tools apply to files.
"""

from __future__ import annotations

import difflib
from typing import Any

from jupyter_agent.features.notebook_tools.cells import Cell, digest

# What the agents of this kernel last read of each cell (cell ids are unique in a notebook):
# the approval bar shows an edit as a diff against it.
_LAST_READ: dict[str, str] = {}


class NotebookReadState:
    def __init__(self) -> None:
        self._digests: dict[str, str] = {}
        self.sources: dict[str, str] = {}  # what each cell held when read: the diff of an edit

    def saw(self, cells: list[Cell]) -> None:
        for cell in cells:
            self._digests[cell.id] = digest(cell.source)
            self.sources[cell.id] = cell.source
            _LAST_READ[cell.id] = cell.source

    def forget(self, cell_id: str) -> None:
        self._digests.pop(cell_id, None)
        self.sources.pop(cell_id, None)

    def problem(self, cell: Cell) -> str | None:
        """Why an edit of ``cell`` must not go ahead, or None."""
        seen = self._digests.get(cell.id)
        if seen is None:
            return f"cell {cell.id} was not read yet: call notebook_read with its id first"
        if seen != digest(cell.source):
            return (
                f"cell {cell.id} changed since you last read it (edited in the notebook): "
                "read it again with notebook_read and base the edit on what it holds now"
            )
        return None


def edit_diff(args: dict[str, Any]) -> str:
    """A ``notebook_edit`` call as a unified diff of the cell's source (what the user approves)."""
    op = args.get("op")
    cell_id = str(args.get("cell_id") or "")
    before = "" if op == "insert" else _LAST_READ.get(cell_id, "")
    after = "" if op == "delete" else str(args.get("source") or "")
    where = f"cell {cell_id}" if cell_id else "new cell"
    if op == "insert":
        where = f"new cell after {cell_id}" if cell_id else "new cell"
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"{where} (before)", f"{where} (after)", lineterm="", n=3
    )
    return "\n".join(lines) or f"{where}: no change"
