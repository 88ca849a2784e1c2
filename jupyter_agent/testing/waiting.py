"""Waiting in tests, always on a condition and with a bound: never a sleep that hopes enough time passed.

Two questions, each answered once, in the two forms tests need (awaited on a running loop; blocking
in threads, subprocess and kernel tests, with ``pause(every)`` doing useful work between checks,
such as reading a kernel's messages):

* **Has it happened?** ``await wait_until(condition)`` / ``wait_until_blocking(condition)``: checks
  until ``condition()`` is true and returns its value; ``AssertionError`` naming ``what`` after
  ``timeout`` seconds.
* **Does nothing happen?** ``await assert_quiet_for(seconds, happened)`` /
  ``assert_quiet_for_blocking(seconds, happened)``: keeps checking for the whole window that
  ``happened()`` stays false, and fails as soon as it is true. For the tests that check that
  something does *not* occur (a timer that must not fire, a message that must not be sent): the
  window is how long the test gives it, never a claim about timing.

``tests/test_architecture.py`` bans every other sleep in the tests.
"""

from __future__ import annotations

import asyncio
import inspect
import socket
import subprocess
import time
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")
POLL = 0.001  # seconds between checks: lets callbacks, timers and other tasks run


async def wait_until(
    condition: Callable[[], T | Awaitable[T]], timeout: float = 5.0, what: str = "the condition", *, every: float = POLL
) -> T:
    """Lets the loop run until ``condition()`` (awaited if it is a coroutine) is true and returns it;
    ``AssertionError`` after ``timeout`` seconds.

    ``every``: seconds between checks, longer for a costly condition (one that scans /proc, asks a server)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return cast(T, value)
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(every)


def wait_until_blocking(
    condition: Callable[[], T],
    timeout: float = 5.0,
    what: str = "the condition",
    *,
    pause: Callable[[float], object] = time.sleep,
    every: float = POLL,
) -> T:
    """``wait_until`` outside a loop: ``pause(every)`` runs between checks (by default it sleeps)."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        pause(every)
    return value


async def assert_quiet_for(seconds: float, happened: Callable[[], object], what: str = "something") -> None:
    """Lets the loop run for ``seconds``, failing as soon as ``happened()`` is true."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while True:
        if value := happened():
            raise AssertionError(f"{what} happened within {seconds} s: {value!r}")
        if loop.time() >= end:
            return
        await asyncio.sleep(POLL)


def assert_quiet_for_blocking(
    seconds: float,
    happened: Callable[[], object],
    what: str = "something",
    *,
    pause: Callable[[float], object] = time.sleep,
    every: float = POLL,
) -> None:
    """``assert_quiet_for`` outside a loop: ``pause(every)`` runs between checks (by default it sleeps)."""
    end = time.monotonic() + seconds
    while True:
        if value := happened():
            raise AssertionError(f"{what} happened within {seconds} s: {value!r}")
        if time.monotonic() >= end:
            return
        pause(min(every, max(0.0, end - time.monotonic())))


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_until_serving(url: str, server: subprocess.Popen[Any], timeout: float, what: str) -> None:
    """Until ``server`` (a process the test started) answers a GET of ``url`` with 200.

    ``RuntimeError`` saying which, when it exits first or does not answer within ``timeout`` seconds
    (callers add its log)."""

    def serving() -> bool:
        if server.poll() is not None:
            raise RuntimeError(f"{what} exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    try:
        wait_until_blocking(serving, timeout, f"{what} to answer", every=0.25)
    except AssertionError:
        raise RuntimeError(f"{what} did not answer within {timeout:g} s") from None


__all__ = [
    "assert_quiet_for",
    "assert_quiet_for_blocking",
    "listening",
    "wait_until",
    "wait_until_blocking",
    "wait_until_serving",
]
