"""Runs an stdio MCP server under a supervisor that ends everything it started, and caps its log.

The kernel starts ``python -S -I launcher.py --pidfile F --parent PID [--log FILE] -- COMMAND ARGS...``
instead of ``COMMAND``; the SDK gives that process a session and process group of its own. The
launcher is the supervisor: it

* writes its pid to the pid file (the kernel's shutdown hook kills the group by it);
* becomes a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every process the server starts,
  including those that leave its group (``setsid``, a double fork), stays below it;
* asks Linux for SIGTERM when the kernel dies (``PR_SET_PDEATHSIG``; a kernel killed with SIGKILL
  runs no hook);
* forks the server with stdin and stdout as the SDK gave them and stderr into a pipe it copies
  into ``--log``, capped at ``--log-max`` bytes per file with one older file kept (``FILE.1``), so
  a server that floods its stderr cannot fill the disk;
* when the server exits, or the launcher gets SIGTERM (the SDK's shutdown, the kernel's kill, the
  kernel's death), ends every process below it: SIGTERM, then SIGKILL after a short grace.

Standard library only and nothing of this package but ``tools/process_tree.py``, loaded by path:
it runs with ``-S -I`` to start fast.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
LOG_MAX_BYTES = 10 * 1024 * 1024  # per file; one older file is kept beside it
_GRACE = 0.3  # after SIGTERM, before SIGKILL: the kernel's own kill escalates after 0.5 s
_USAGE = "usage: launcher.py --pidfile FILE --parent PID [--log FILE] [--log-max BYTES] -- COMMAND [ARGS...]\n"


class _Stop(Exception):
    """SIGTERM arrived: end the server and everything below it now."""


def _process_tree() -> ModuleType:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "tools" / "process_tree.py"
    spec = importlib.util.spec_from_file_location("process_tree", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return bool(ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


class CappedLog:
    """Appends to ``path``; past ``limit`` bytes the file becomes ``path.1`` and a new one starts."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        self.limit = limit
        self._handle = _private_append(path)
        self.size = self._handle.tell()

    def write(self, data: bytes) -> None:
        while data:
            room = self.limit - self.size
            if room <= 0:
                self._rotate()
                continue
            piece, data = data[:room], data[room:]
            self._handle.write(piece)
            self._handle.flush()
            self.size += len(piece)

    def _rotate(self) -> None:
        self._handle.close()
        os.replace(self.path, self.path + ".1")
        self._handle = _private_append(self.path)
        note = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} log continued: the previous {self.limit} bytes are in {os.path.basename(self.path)}.1\n"
        self._handle.write(note.encode())
        self.size = len(note)

    def close(self) -> None:
        self._handle.close()


def _private_append(path: str) -> BinaryIO:
    # A server's stderr may hold what its env held (tokens): only the owner reads it, as the session.
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab")


def _copy(source: int, log: CappedLog | None) -> None:
    while True:
        try:
            data = os.read(source, 65536)
        except OSError:
            return
        if not data:
            return
        if log is not None:
            try:
                log.write(data)
            except OSError:
                log = None  # a log that cannot be written (a full disk) is dropped, not the server


def _parse(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    if "--" not in argv:
        sys.stderr.write(_USAGE)
        os._exit(2)
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    if len(options) % 2 or not command:
        sys.stderr.write(_USAGE)
        os._exit(2)
    return dict(zip(options[::2], options[1::2])), command


def _end_everything_below(tree: ModuleType, grace: float) -> None:
    """SIGTERM to every descendant, then SIGKILL to what is left after ``grace``; reaps them."""
    me = os.getpid()
    below = tree.descendants(me)
    tree.signal_each(below, signal.SIGTERM)
    tree.signal_each(below, signal.SIGCONT)
    deadline = time.monotonic() + grace
    while below and time.monotonic() < deadline:
        _reap()
        time.sleep(0.01)
        below = tree.descendants(me)
    for _ in range(50):  # until nothing new appears: a process may fork while it is being killed
        below = tree.descendants(me)
        if not below:
            break
        tree.signal_each(below, signal.SIGKILL)
        _reap()
        time.sleep(0.005)
    _reap()


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main(argv: list[str]) -> None:
    options, command = _parse(argv)
    parent = int(options.get("--parent", "0"))
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    if _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM) and parent and os.getppid() != parent:
        os._exit(1)  # the kernel died before prctl took effect
    if "--pidfile" in options:
        with open(options["--pidfile"], "w", encoding="ascii") as handle:
            handle.write(str(os.getpid()))
    log = None
    if "--log" in options:
        try:
            log = CappedLog(options["--log"], int(options.get("--log-max", LOG_MAX_BYTES)))
        except OSError:
            log = None

    def stop(signum: int, frame: object) -> None:
        raise _Stop()

    # Before the fork: a SIGTERM that comes at once must still end what is started.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel's Interrupt is not the server's
    read_end, write_end = os.pipe()
    server = os.fork()
    if server == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.close(read_end)
        os.dup2(write_end, 2)
        os.close(write_end)
        try:
            os.execvp(command[0], command)
        except OSError as error:
            os.write(2, f"cannot run {command[0]!r}: {error.strerror or error}\n".encode())
        os._exit(127)
    code, grace, tree = 0, _GRACE, None
    copier = threading.Thread(target=_copy, args=(read_end, log), daemon=True)
    try:
        os.close(write_end)
        # stdin and stdout are the server's now: the SDK's EOF on stdin must reach it alone.
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        copier.start()
        tree = _process_tree()
        _, status = os.waitpid(server, 0)
        code = os.waitstatus_to_exitcode(status)
        grace = 1.0  # the server ended by itself: its children get a moment to wind down
    except _Stop:
        code = 128 + signal.SIGTERM
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # ending everything below cannot be cut short
    _end_everything_below(tree or _process_tree(), grace)
    if copier.is_alive():
        copier.join(1.0)
    if log is not None:
        log.close()
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main(sys.argv[1:])
