"""External ``python`` calls take their turn with the user's cells: never two pieces of code at once.

Code runs on the kernel's thread, so a cell that computes blocks the loop and no request is even
read meanwhile. But a cell that *awaits* (``await asyncio.sleep(5)``, an async client) leaves the
loop free between its steps, and code run by a request then would cut into the middle of it. So
the IPython events ``pre_run_cell`` / ``post_run_cell`` mark a cell as running, and an external
call waits until it ends; calls wait for one another too (first come, first served). The
``python`` tool's own ``run_cell`` fires the same events: those are ignored.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")
WAITING_FOR_CELL = "waiting for the running cell to finish"


class CellTurns:
    def __init__(self, shell: object, *, cell_running: bool = False) -> None:
        """``cell_running``: whether a cell is executing now (``%agent serve`` starts inside one)."""
        self._events = getattr(shell, "events", None)
        self._cell_running = cell_running
        self._idle: asyncio.Event | None = None
        self._ours = False
        self._lock: asyncio.Lock | None = None
        self._installed = False

    @property
    def cell_running(self) -> bool:
        return self._cell_running

    def install(self) -> None:
        if self._events is not None and not self._installed:
            self._events.register("pre_run_cell", self._pre_run_cell)
            self._events.register("post_run_cell", self._post_run_cell)
            self._installed = True

    def remove(self) -> None:
        if self._events is not None and self._installed:
            for name, callback in (("pre_run_cell", self._pre_run_cell), ("post_run_cell", self._post_run_cell)):
                try:
                    self._events.unregister(name, callback)
                except ValueError:
                    pass  # already gone (the shell was reset)
            self._installed = False
        self._cell_running = False
        if self._idle is not None:
            self._idle.set()  # nothing waits for a cell once the server stops

    async def run(self, work: Callable[[], Awaitable[T]], on_wait: Callable[[str], None] = lambda _text: None) -> T:
        """Runs ``work`` when no cell and no other external call runs; ``on_wait`` hears that it waits."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while self._cell_running:
                on_wait(WAITING_FOR_CELL)
                await self._idle_event().wait()
            self._ours = True
            try:
                return await work()
            finally:
                self._ours = False

    def _idle_event(self) -> asyncio.Event:
        if self._idle is None:
            self._idle = asyncio.Event()
        if not self._cell_running:
            self._idle.set()
        return self._idle

    def _pre_run_cell(self, info: object = None) -> None:
        if self._ours:
            return
        self._cell_running = True
        if self._idle is not None:
            self._idle.clear()

    def _post_run_cell(self, result: object = None) -> None:
        if self._ours:
            return
        self._cell_running = False
        if self._idle is not None:
            self._idle.set()


__all__ = ["WAITING_FOR_CELL", "CellTurns"]
