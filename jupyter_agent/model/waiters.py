"""``Waiters``: consumers parked until a producer says something changed (a tiny condition)."""

from __future__ import annotations

import asyncio


class Waiters:
    """``await wait()`` parks the caller until the next ``wake()``; callers re-check their state.

    Futures, not an ``asyncio.Event``: every wake releases exactly the consumers waiting then,
    with no reset race, and producers may call ``wake()`` from plain (non-async) code.
    """

    def __init__(self) -> None:
        self._futures: list[asyncio.Future[None]] = []

    def __bool__(self) -> bool:
        """Whether anyone waits (lets a producer skip the wake-up on its hot path)."""
        return bool(self._futures)

    async def wait(self) -> None:
        future = asyncio.get_running_loop().create_future()
        self._futures.append(future)
        try:
            await future
        finally:
            if future in self._futures:
                self._futures.remove(future)

    def wake(self) -> None:
        futures, self._futures = self._futures, []
        for future in futures:
            if not future.done():
                future.set_result(None)
