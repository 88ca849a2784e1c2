"""Running file work in a worker thread so the kernel's event loop keeps serving the notebook."""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

import anyio.to_thread

from jupyter_agent.errors import JupyterAgentError

T = TypeVar("T")


class Stopped(JupyterAgentError):
    """The caller stopped waiting (the run was cancelled); the worker thread gives up early."""


async def in_thread(work: Callable[[threading.Event], T], *, cancellable: bool = True) -> T:
    """Runs ``work(stop)`` in a thread; ``stop`` is set when the caller stops waiting.

    A cancellable call returns at once on cancellation and the worker checks ``stop`` to give up
    early; a write is not cancellable, so a cancelled run never leaves a file half written.
    """
    stop = threading.Event()
    try:
        return await anyio.to_thread.run_sync(work, stop, abandon_on_cancel=cancellable)
    finally:
        stop.set()
