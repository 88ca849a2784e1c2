"""Waiting for a condition in tests, with a bound: never a sleep that hopes enough time passed."""

from __future__ import annotations

import asyncio
import socket
from typing import Callable

POLL = 0.001  # seconds between checks: lets callbacks, timers and other tasks run


async def wait_until(condition: Callable[[], object], timeout: float = 5.0, what: str = "the condition") -> None:
    """Lets the loop run until ``condition()`` is true; ``AssertionError`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(POLL)


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


__all__ = ["listening", "wait_until"]
