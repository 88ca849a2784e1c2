"""A bound on a provider's silence, not on the response's length.

``async with IdleTimeout(120) as idle:`` raises ``TimeoutError`` out of the block once 120 s pass
without ``idle.touch()``. A response may stream for an hour; it may not stall for two minutes.
Touching costs one clock read (it runs once per chunk): a single timer wakes up at the earliest
moment the bound could be exceeded and re-arms itself from the last touch.
"""

from __future__ import annotations

import asyncio
import os
from types import TracebackType

DEFAULT_IDLE_TIMEOUT = 120.0
IDLE_TIMEOUT_ENV = "JUPYTER_AGENT_STREAM_TIMEOUT"


def idle_timeout_seconds(configured: float | None) -> float:
    """``configured``, else ``JUPYTER_AGENT_STREAM_TIMEOUT``, else 120 s."""
    if configured is not None:
        return configured
    raw = os.environ.get(IDLE_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_IDLE_TIMEOUT
    try:
        seconds = float(raw)
    except ValueError:
        raise ValueError(f"{IDLE_TIMEOUT_ENV} must be a number of seconds, not {raw!r}") from None
    if not seconds > 0:
        raise ValueError(f"{IDLE_TIMEOUT_ENV} must be positive, not {raw!r}")
    return seconds


def no_data_message(provider: str, seconds: float) -> str:
    return f"{provider or 'provider'}: no data from the provider for {seconds:g} s"


class IdleTimeout:
    _loop: asyncio.AbstractEventLoop  # the running loop, from entry on

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._scope = asyncio.timeout(None)
        self._last = 0.0
        self._timer: asyncio.TimerHandle | None = None

    async def __aenter__(self) -> "IdleTimeout":
        loop = self._loop = asyncio.get_running_loop()
        await self._scope.__aenter__()
        self._last = loop.time()
        self._timer = loop.call_at(self._last + self.seconds, self._check)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        await self._scope.__aexit__(kind, error, traceback)

    def touch(self) -> None:
        self._last = self._loop.time()

    def _check(self) -> None:
        deadline = self._last + self.seconds
        if self._loop.time() >= deadline:
            self._timer = None
            self.expired = True
            self._scope.reschedule(self._loop.time())  # cancels the block's task; it leaves with TimeoutError
        else:
            self._timer = self._loop.call_at(deadline, self._check)


__all__ = ["DEFAULT_IDLE_TIMEOUT", "IDLE_TIMEOUT_ENV", "IdleTimeout", "idle_timeout_seconds", "no_data_message"]
