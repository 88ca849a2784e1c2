"""Running a grep in a worker process that Stop, abort or a time limit kills at once.

A regular expression engine cannot be interrupted inside one match: a pattern that backtracks
catastrophically runs for as long as it likes, and the ``regex`` engine's own time limit is not
always honoured (a 3 s limit took 25 s on ``(a+)+$`` and 5000 ``a``). In a worker process the
search is bounded for certain: the kernel's thread only waits on a pipe, and killing the worker
ends the match. Workers are plain ``python`` processes (never a fork of the kernel and its
threads) kept for reuse, so only the first search, and the first after a kill, waits for one to start.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from typing import IO, Any, Callable

from jupyter_agent.tools.blocking import Stopped
from jupyter_agent.tools.errors import ToolError

# A search of 50 000 files takes seconds; one this long is stuck in a pattern, not reading files.
SEARCH_SECONDS = 120.0
_IDLE_WORKERS = 2
_BOOT = "from jupyter_agent.tools.grep_process import serve; serve()"
_HEADER = struct.Struct("!Q")

_idle: list[subprocess.Popen[bytes]] = []
_idle_lock = threading.Lock()


def run_bounded(
    work: Callable[..., str], arguments: tuple[Any, ...], stop: threading.Event, seconds: float = SEARCH_SECONDS
) -> str:
    """``work(*arguments)`` in a worker process; a ``ToolError`` there is raised here with its text."""
    worker = _take_worker()
    finished = False
    try:
        _send(worker.stdin, (work, arguments))
        deadline = time.monotonic() + seconds
        assert worker.stdout is not None
        while not select.select([worker.stdout], [], [], 0.02)[0]:
            if stop.is_set():
                raise Stopped()
            if time.monotonic() > deadline:
                raise ToolError(
                    f"The search took over {seconds:g} s and was stopped. Narrow the path or glob, or "
                    "simplify the pattern (nested quantifiers such as (a+)+ backtrack without end)."
                )
        reply = _receive(worker.stdout)
        if reply is None:
            raise ToolError(f"The search process ended unexpectedly (exit code {worker.poll()}).")
        finished = True
    finally:
        if finished:
            _give_back(worker)
        else:
            _kill(worker)
    failed, text = reply
    if failed:
        raise ToolError(text)
    return str(text)


def _take_worker() -> subprocess.Popen[bytes]:
    with _idle_lock:
        while _idle:
            worker = _idle.pop()
            if worker.poll() is None:
                return worker
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    return subprocess.Popen(
        [sys.executable, "-c", _BOOT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=environment,
        start_new_session=True,  # a Ctrl-C meant for the kernel does not reach it
    )


def _give_back(worker: subprocess.Popen[bytes]) -> None:
    with _idle_lock:
        if len(_idle) < _IDLE_WORKERS:
            _idle.append(worker)
            return
    _kill(worker)


def _kill(worker: subprocess.Popen[bytes]) -> None:
    worker.kill()
    worker.wait()
    for stream in (worker.stdin, worker.stdout):
        if stream is not None:
            stream.close()


def _send(stream: IO[bytes] | None, value: Any) -> None:
    assert stream is not None
    data = pickle.dumps(value)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes] | None) -> Any:
    assert stream is not None
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    return pickle.loads(data) if len(data) == size else None


def serve() -> None:
    """The worker: one request at a time from stdin, each answer to stdout, until stdin closes."""
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but replies may reach the pipe
    while (request := _receive(requests)) is not None:
        work, arguments = request
        try:
            reply = (False, work(*arguments))
        except ToolError as error:
            reply = (True, error.message)
        except Exception as error:  # the kernel side shows it as a tool error
            reply = (True, f"The search failed: {type(error).__name__}: {error}")
        _send(replies, reply)
