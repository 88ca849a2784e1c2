"""The notebook without the extension: its file on disk, with the cells run since the last save.

The file lags the live document by whatever the user did not save. The kernel's history (``In``,
``Out``) knows the cells executed since: every entry newer than the file's highest execution
count (or, after a kernel restart, every entry whose source the file does not hold) is appended
as a cell "run since the last save". ``In`` holds the code IPython ran (a magic becomes
``get_ipython().run_line_magic(...)``): where the kernel kept what the user typed (IPython's raw
input history), that is the cell's source, as in the file. Unsaved edits of cells that did not run
are invisible here, which the source label says.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jupyter_agent.features.frontend import CellJson, CellOutput
from jupyter_agent.features.notebook_tools.cells import Cell
from jupyter_agent.features.notebook_tools.ipynb import notebook_cells

DISK_SOURCE = "the notebook file on disk{merged} (unsaved edits of cells not run since are not visible)"
NO_FILE = "no notebook file is known for this kernel"
HISTORY_NOTE = "run since the last save (kernel history)"  # a cell made of a kernel history entry
# Agent cells as the kernel's history holds them: their turns are in the session, not the outline.
AGENT_CELL_PREFIXES = ("get_ipython().run_cell_magic('agent'", "%%agent", "await get_ipython().find_cell_magic('agent')")


def read_disk_cells(
    path: Path | None, user_ns: dict[str, object] | None, typed: Sequence[str] = (), *, payloads: bool = False
) -> tuple[list[Cell], str]:
    """The cells and a label saying where they came from.

    ``typed``: what the user typed for each input, by execution count (IPython's ``input_hist_raw``);
    an input it does not cover reads as ``In`` holds it. Without ``payloads`` the outputs' images,
    HTML and the like are "…" (``ipynb``): what an outline shows, read in a fraction of the time.
    """
    saved = (notebook_cells(path, payloads=payloads) or []) if path is not None and path.is_file() else []
    cells = _cells_of(saved)
    history = _history_since_save(cells, user_ns or {}, typed)
    for n, source, output in history:
        outputs: list[CellOutput] = [{"output_type": "execute_result", "data": {"text/plain": output}}] if output else []
        cells.append(
            Cell(
                index=len(cells),
                id=f"history-{n}",
                cell_type="code",
                source=source,
                execution_count=n,
                outputs=outputs,
                note=HISTORY_NOTE,
            )
        )
    if path is None or not path.is_file():
        label = f"kernel history only ({NO_FILE})" if path is None else f"kernel history only ({path} does not exist)"
        return cells, label
    merged = f" {path.name} merged with {len(history)} cell(s) run since the last save" if history else f" {path.name}"
    return cells, DISK_SOURCE.format(merged=merged)


def _cells_of(saved: list[CellJson]) -> list[Cell]:
    """The cells of a read (remembered with it, as the read is: nobody changes a cell)."""
    known = _CELLS.get(id(saved))
    if known is None or known[0] is not saved:
        known = _CELLS[id(saved)] = (saved, [Cell.from_json(index, cell) for index, cell in enumerate(saved)])
        while len(_CELLS) > _REMEMBERED:
            del _CELLS[next(iter(_CELLS))]
    return list(known[1])


# The cells of the latest reads (each keeps its read alive, so its id is not reused meanwhile).
_CELLS: dict[int, tuple[list[CellJson], list[Cell]]] = {}
_REMEMBERED = 4


def _history_since_save(cells: list[Cell], user_ns: dict[str, Any], typed: Sequence[str]) -> list[tuple[int, str, str]]:
    inputs = user_ns.get("In") or []
    outputs = user_ns.get("Out") or {}
    saved_max = max((cell.execution_count or 0 for cell in cells), default=0)
    saved_sources = {cell.source.strip() for cell in cells}
    restarted = len(inputs) - 1 < saved_max  # the kernel counts from 1 again
    found = []
    for n in range(1, len(inputs)):
        source = str(typed[n] if n < len(typed) else inputs[n])
        if not source.strip() or source.strip() in saved_sources or source.lstrip().startswith(AGENT_CELL_PREFIXES):
            continue
        if not restarted and n <= saved_max:
            continue
        output = outputs.get(n)
        found.append((n, source, _repr(output) if output is not None else ""))
    return found


def _repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001 - a broken __repr__ must not break the read
        text = f"<{type(value).__name__}: repr failed: {error}>"
    return text if len(text) <= 2_000 else text[:1_999] + "…"
