"""What the agent has read of the notebook: a digest of each cell's source, for staleness checks.

An edit of a cell the agent read is refused when the cell changed since (the user typed into it,
or another edit landed), the same rule the file tools apply to files.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from jupyter_agent.features.notebook_tools.cells import Cell, digest
from jupyter_agent.features.notebook_tools.stale import StaleCell
from jupyter_agent.loop import ApprovalPreview
from jupyter_agent.messages import JsonObject

# What the agents of this kernel last read of each cell (cell ids are unique in a notebook):
# the approval bar shows an edit as a diff against it.
_LAST_READ: dict[str, str] = {}
# And where each cell was then, as the user finds it (its position and execution count): an
# approval names the cell so, not by its id alone.
_LAST_PLACE: dict[str, str] = {}
RUN_PREVIEW_LINES = 8  # the head of a cell notebook_run asks to run: enough to recognise it
STALE_PREVIEW_LINES = 3  # the head of each of the stale cells a re-run lists


class NotebookReadState:
    def __init__(self) -> None:
        self._digests: dict[str, str] = {}
        self.sources: dict[str, str] = {}  # what each cell held when read: the diff of an edit

    def saw(self, cells: list[Cell]) -> None:
        for cell in cells:
            self._digests[cell.id] = digest(cell.source)
            self.sources[cell.id] = cell.source
            _LAST_READ[cell.id] = cell.source
            _LAST_PLACE[cell.id] = cell_place(cell)

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


def last_read_source(cell_id: str) -> str | None:
    """What the agents of this kernel last read of the cell (what an edit of it is reviewed against)."""
    return _LAST_READ.get(cell_id)


def cell_place(cell: Cell) -> str:
    """A cell as the user finds it: its position from the top (1 = first) and its prompt ("[7]", "[ ]")."""
    count = f" [{cell.execution_count}]" if cell.execution_count else " [ ]" if cell.cell_type == "code" else ""
    return f"cell {cell.index + 1}{count} · id {cell.id}"


def place_of(cell_id: str) -> str:
    """Where the agent last saw the cell ``cell_id``, or its id alone when it never read it."""
    return _LAST_PLACE.get(cell_id) or f"cell {cell_id}"


def run_preview(args: JsonObject, cells: Sequence[Cell] = (), stale: Sequence[StaleCell] = ()) -> ApprovalPreview | None:
    """What a ``notebook_run`` asks to approve: each cell it runs as the user finds it in ``cells``
    (the notebook now: its position, its prompt and the head of its source), else as the agent last
    read it; with ``stale: true``, the ``stale`` cells in the order they will run."""
    by_id = {cell.id: cell for cell in cells}
    limit = f", interrupted after {args['timeout']:g} s" if args.get("timeout") else ""
    if args.get("stale"):
        if not stale:
            return None
        count = f"{len(stale)} stale cell{'s' if len(stale) != 1 else ''}"
        lines = [f"Re-run {count} in order{limit}:"]
        for cell in stale:
            lines += _cell_lines(cell.id, by_id, STALE_PREVIEW_LINES, f"reads {', '.join(cell.reads)}")
        return ApprovalPreview("\n".join(lines), kind="code", complete=True)
    cell_id = str(args.get("cell_id") or "")
    if not cell_id:
        return None
    lines = _cell_lines(cell_id, by_id, RUN_PREVIEW_LINES)
    lines[0] = "Run " + lines[0].removesuffix(":") + limit + ":"
    return ApprovalPreview("\n".join(lines), kind="code", complete=True)


def _cell_lines(cell_id: str, by_id: dict[str, Cell], most: int, why: str = "") -> list[str]:
    """A cell's place ("cell 3 [2] · id load", and ``why``) and the first ``most`` lines of its source."""
    cell = by_id.get(cell_id)
    place = cell_place(cell) if cell is not None else place_of(cell_id)
    source = cell.source if cell is not None else _LAST_READ.get(cell_id)
    lines = [place + (f" ({why})" if why else "") + ":"]
    if source is None:
        known = "not in the notebook now" if by_id else "not read by the agent"
        return [*lines, f"(a cell {known}: its source is not known here)"]
    shown = source.splitlines() or ["(empty)"]
    lines += shown[:most]
    if len(shown) > most:
        more = len(shown) - most
        lines.append(f"… ({more} more line{'s' if more != 1 else ''})")
    return lines


def edit_diff(args: JsonObject) -> str:
    """A ``notebook_edit`` call as a unified diff of the cell's source (what the user approves)."""
    op = args.get("op")
    cell_id = str(args.get("cell_id") or "")
    before = "" if op == "insert" else _LAST_READ.get(cell_id, "")
    after = "" if op == "delete" else str(args.get("source") or "")
    where = place_of(cell_id) if cell_id else "new cell"
    if op == "insert":
        where = f"new cell after {place_of(cell_id)}" if cell_id else "new cell"
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"{where} (before)", f"{where} (after)", lineterm="", n=3
    )
    return "\n".join(lines) or f"{where}: no change"


def edit_preview(args: JsonObject) -> ApprovalPreview:
    """What a ``notebook_edit`` call asks to approve: its diff, which says all the edit does."""
    return ApprovalPreview(edit_diff(args), kind="diff", complete=True)
