"""Running a grep in a child process that Stop, abort or a time limit kills at once.

A regular expression engine cannot be interrupted inside one match: a pattern that backtracks
catastrophically runs for as long as it likes, and the ``regex`` engine's own time limit is not
always honoured (a 3 s limit took 25 s on ``(a+)+$`` and 5000 ``a``). In a child process the
search is bounded for certain: the kernel's thread only waits on a pipe, and killing the child
ends the match. Children are forked from the standard library's fork server (started once, with
this package preloaded), so each search starts in milliseconds and never forks the kernel itself.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from multiprocessing.connection import Connection
from typing import Callable

from jupyter_agent.tools.blocking import Stopped
from jupyter_agent.tools.errors import ToolError

# A search of 50 000 files takes seconds; one this long is stuck in a pattern, not reading files.
SEARCH_SECONDS = 120.0
_POLL_SECONDS = 0.02
_PRELOAD = ["jupyter_agent.tools.grep"]
_context_lock = threading.Lock()
_context: multiprocessing.context.BaseContext | None = None


def _fork_server() -> multiprocessing.context.BaseContext:
    global _context
    with _context_lock:
        if _context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)  # no effect when the user's code started it first
            _context = context
        return _context


def run_bounded(work: Callable[..., str], arguments: tuple, stop: threading.Event, seconds: float = SEARCH_SECONDS) -> str:
    """``work(*arguments)`` in a child process; its ``ToolError`` message comes back as one."""
    context = _fork_server()
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, arguments, sender), daemon=True, name="jupyter-agent-grep")
    try:
        child.start()
        sender.close()
        deadline = time.monotonic() + seconds
        while not receiver.poll(_POLL_SECONDS):
            if stop.is_set():
                raise Stopped()
            if time.monotonic() > deadline:
                raise ToolError(
                    f"The search took over {seconds:g} s and was stopped. Narrow the path or glob, or "
                    "simplify the pattern (nested quantifiers such as (a+)+ backtrack without end)."
                )
            if not child.is_alive() and not receiver.poll(0):
                raise ToolError(f"The search process ended unexpectedly (exit code {child.exitcode}).")
        try:
            failed, text = receiver.recv()
        except EOFError:
            raise ToolError(f"The search process ended unexpectedly (exit code {child.exitcode}).") from None
    finally:
        if child.is_alive():
            child.kill()
        if child.pid is not None:
            child.join(5)
        receiver.close()
    if failed:
        raise ToolError(text)
    return text


def _child(work: Callable[..., str], arguments: tuple, sender: Connection) -> None:
    try:
        result = (False, work(*arguments))
    except ToolError as error:
        result = (True, error.message)
    sender.send(result)
    sender.close()
