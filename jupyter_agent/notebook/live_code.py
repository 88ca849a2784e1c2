"""While agent-run Python blocks the event loop: its output in the call's card, the clock moving.

The ``python`` tool runs user code on the loop's thread, like a cell, so for as long as it runs
no timer fires and no event reaches the panel. A helper thread takes over the two things the
user must still see: what the code prints (collected as it is printed, pushed a few times a
second) and the footer's elapsed time. It is the only thread touching the panel meanwhile, and
it is joined before the code's result goes back to the loop.
"""

from __future__ import annotations

import contextvars
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

LIVE_INTERVAL = 0.25  # seconds between two pushes: live to a reader, a handful of comm messages


class LiveCode:
    """``python_tool``'s ``live`` hook for the renderer ``renderer()`` returns when the code starts.

    The renderer is duck-typed: one with ``live_output(text)`` (and ``tick()``, the clock) shows the
    output as it comes, ``before_blocking()`` (awaited) prepares for the loop to block."""

    def __init__(self, renderer: Callable[[], object]) -> None:
        self._renderer = renderer

    async def before_blocking(self) -> None:
        """``python_tool``'s ``before_blocking`` hook: the renderer's own, where it has one."""
        wait = getattr(self._renderer(), "before_blocking", None)
        if wait is not None:
            await wait()

    @contextmanager
    def __call__(self) -> Iterator[Callable[[str], None] | None]:
        renderer = self._renderer()
        live_output = getattr(renderer, "live_output", None)
        if renderer is None or live_output is None:
            yield None  # plain displays and the terminal show the result when it comes
            return
        tick = getattr(renderer, "tick", None)
        pending: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def collect(text: str) -> None:
            with lock:
                pending.append(text)

        def push() -> None:
            with lock:
                text = "".join(pending)
                pending.clear()
            try:
                if text:
                    live_output(text)
                elif tick is not None:
                    tick()
            except Exception:  # noqa: BLE001 - a display failure must not disturb the user's code
                pass

        def keep_pushing() -> None:
            while not stop.wait(LIVE_INTERVAL):
                push()

        # The copied context carries the cell's parent header, so the updates reach its output.
        thread = threading.Thread(
            target=contextvars.copy_context().run, args=(keep_pushing,), name="jupyter-agent-live-code", daemon=True
        )
        thread.start()
        try:
            yield collect
        finally:
            stop.set()
            thread.join(timeout=5)


__all__ = ["LIVE_INTERVAL", "LiveCode"]
