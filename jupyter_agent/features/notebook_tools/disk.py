"""The notebook without the extension: its file on disk, with the cells run since the last save.

The file lags the live document by whatever the user did not save. The kernel's history (``In``,
``Out``) knows the cells executed since: every entry newer than the file's highest execution
count (or, after a kernel restart, every entry whose source the file does not hold) is appended
as a cell "run since the last save". Unsaved edits of cells that did not run are invisible here,
which the source label says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jupyter_agent.features.notebook_tools.cells import Cell

DISK_SOURCE = "the notebook file on disk{merged} (unsaved edits of cells not run since are not visible)"
NO_FILE = "no notebook file is known for this kernel"
# Agent cells as the kernel's history holds them: their turns are in the session, not the outline.
AGENT_CELL_PREFIXES = ("get_ipython().run_cell_magic('agent'", "%%agent", "await get_ipython().find_cell_magic('agent')")


def read_disk_cells(path: Path | None, user_ns: dict[str, Any] | None) -> tuple[list[Cell], str]:
    """The cells and a label saying where they came from."""
    saved: list[dict[str, Any]] = []
    if path is not None and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            data = {}
        saved = [cell for cell in data.get("cells", []) if isinstance(cell, dict)]
    cells = [Cell.from_json(index, cell) for index, cell in enumerate(saved)]
    history = _history_since_save(cells, user_ns or {})
    for n, source, output in history:
        outputs = [{"output_type": "execute_result", "data": {"text/plain": output}}] if output else []
        cells.append(
            Cell(
                index=len(cells),
                id=f"history-{n}",
                cell_type="code",
                source=source,
                execution_count=n,
                outputs=outputs,
                note="run since the last save (kernel history)",
            )
        )
    if path is None or not path.is_file():
        label = f"kernel history only ({NO_FILE})" if path is None else f"kernel history only ({path} does not exist)"
        return cells, label
    merged = f" {path.name} merged with {len(history)} cell(s) run since the last save" if history else f" {path.name}"
    return cells, DISK_SOURCE.format(merged=merged)


def _history_since_save(cells: list[Cell], user_ns: dict[str, Any]) -> list[tuple[int, str, str]]:
    inputs = user_ns.get("In") or []
    outputs = user_ns.get("Out") or {}
    saved_max = max((cell.execution_count or 0 for cell in cells), default=0)
    saved_sources = {cell.source.strip() for cell in cells}
    restarted = len(inputs) - 1 < saved_max  # the kernel counts from 1 again
    found = []
    for n in range(1, len(inputs)):
        source = str(inputs[n])
        if not source.strip() or source.strip() in saved_sources or source.lstrip().startswith(AGENT_CELL_PREFIXES):
            continue
        if not restarted and n <= saved_max:
            continue
        output = outputs.get(n)
        found.append((n, source, _repr(output) if output is not None else ""))
    return found


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001 - a broken __repr__ must not break the read
        text = f"<{type(value).__name__}: repr failed: {error}>"
    return text if len(text) <= 2_000 else text[:1_999] + "…"
