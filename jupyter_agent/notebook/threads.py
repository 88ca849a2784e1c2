"""Handing work to the kernel's event loop from whatever thread a callback runs on.

The agent lives on the kernel's event loop (the main thread). Widget clicks and the lab
extension's comm messages may arrive on another thread: JupyterLab ≥ 4.4 sends comm messages over
a kernel subshell, which ipykernel 7 serves on a thread of its own with its own loop. Anything
such a callback does to a run (resolve a future, push a steer, interrupt) must happen on the
run's loop, so every callback goes through ``call_on_loop``.
"""

from __future__ import annotations

import asyncio
from typing import Callable, TypeVarTuple, Unpack

Args = TypeVarTuple("Args")


def on_loop_thread(loop: asyncio.AbstractEventLoop | None) -> bool:
    """Whether the calling code runs on ``loop`` (False for None and on any other thread)."""
    if loop is None:
        return False
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def call_on_loop(loop: asyncio.AbstractEventLoop | None, function: Callable[[Unpack[Args]], object], *args: Unpack[Args]) -> None:
    """Calls ``function(*args)`` on ``loop``: now when that is where we are, else as soon as it can.

    Called directly, too, when there is no loop to hand it to (None, closed, or not running: then
    nobody else could be touching what it changes), so tests and terminal IPython need no loop.
    """
    if loop is None or loop.is_closed() or not loop.is_running() or on_loop_thread(loop):
        function(*args)
    else:
        # _threadsafe also wakes the loop's selector, so the call runs at once, not at the next event.
        loop.call_soon_threadsafe(function, *args)


__all__ = ["call_on_loop", "on_loop_thread"]
