"""How long each notebook cell took the last time it ran, and which cell runs now.

IPython tells every cell's start and end (``pre_run_cell`` / ``post_run_cell``, with the cell's
id JupyterLab sends); the clock keeps the last duration per cell id for as long as the kernel
lives. ``notebook_run`` reads it to ask before it re-runs an expensive cell, and its time limit
reads ``running`` to interrupt only the cell it started. Code the agent runs itself (the
``python`` tool, which has no cell id) is not a cell: it is stacked and left out.

A cell that ran before the extension was loaded (or before a kernel restart) has no duration:
it runs unasked until it has run once here.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


class CellClock:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.last: dict[str, float] = {}  # cell id -> seconds its last run took
        self._stack: list[tuple[str | None, float]] = []  # runs in progress, innermost last

    @property
    def running(self) -> str | None:
        """The id of the notebook cell executing now (not counting the agent's own code inside it)."""
        return next((cell_id for cell_id, _ in reversed(self._stack) if cell_id is not None), None)

    def started(self, info: object) -> None:
        cell_id = getattr(info, "cell_id", None)
        self._stack.append((cell_id if isinstance(cell_id, str) and cell_id else None, self._clock()))

    def ended(self, result: object = None) -> None:
        if not self._stack:
            return  # loaded in the middle of a cell: its start was never seen
        cell_id, began = self._stack.pop()
        if cell_id is not None:
            self.last[cell_id] = self._clock() - began

    def seconds(self, cell_id: str) -> float | None:
        """How long the cell's last run took; None: it has not run since the extension was loaded."""
        return self.last.get(cell_id)

    def install(self, shell: InteractiveShell) -> None:
        shell.events.register("pre_run_cell", self.started)
        shell.events.register("post_run_cell", self.ended)

    def remove(self, shell: InteractiveShell) -> None:
        for event, callback in (("pre_run_cell", self.started), ("post_run_cell", self.ended)):
            try:
                shell.events.unregister(event, callback)
            except ValueError:  # never registered
                pass


_CLOCKS: dict[int, CellClock] = {}  # id(shell) -> its clock


def cell_clock(shell: InteractiveShell) -> CellClock:
    """The clock of ``shell``'s cells, installed on first use (``%load_ext`` installs it)."""
    clock = _CLOCKS.get(id(shell))
    if clock is None:
        clock = _CLOCKS[id(shell)] = CellClock()
        if getattr(shell, "events", None) is not None:
            clock.install(shell)
    return clock


def remove_cell_clock(shell: InteractiveShell) -> None:
    clock = _CLOCKS.pop(id(shell), None)
    if clock is not None:
        clock.remove(shell)


__all__ = ["CellClock", "cell_clock", "remove_cell_clock"]
