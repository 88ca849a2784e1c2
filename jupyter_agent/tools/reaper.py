"""Commands still running when the kernel ends are ended with it, even when it is killed (SIGKILL).

A kernel that exits runs its ``atexit`` hooks: ``end_all`` stops every running command there as a
stop does (its whole tree frozen and killed). A kernel that is killed runs nothing, so one reaper
process per kernel watches instead: ``python -S -I reaper.py``, started with the first command, in
a session of its own (a kill of the kernel's process group does not reach it), reading lines from
a pipe whose other end only the kernel holds. ``+PID`` registers a running command's shell (the
leader of the command's session), ``-PID`` forgets it. When the pipe closes, whichever way the
kernel ended, the reaper stops each command still registered, then exits.

The script is standard library only (it runs with ``-S -I`` and loads ``process_tree.py`` by path).
"""

from __future__ import annotations

import atexit
import signal
import subprocess
import sys
import threading
from pathlib import Path

_lock = threading.Lock()
_running: set[int] = set()  # shells of the commands running now (each leads its own session)
_reaper: subprocess.Popen[bytes] | None = None
_hooked = False


def watch(shell: int) -> None:
    """``shell`` (a command's shell, leader of its session) runs: end it with the kernel."""
    global _hooked
    with _lock:
        _running.add(shell)
        if not _hooked:
            atexit.register(end_all)
            _hooked = True
    _tell(f"+{shell}\n")


def unwatch(shell: int) -> None:
    with _lock:
        _running.discard(shell)
    _tell(f"-{shell}\n")


def end_all() -> None:
    """Stops every command still running (at interpreter exit: a kernel shutdown)."""
    with _lock:
        shells = list(_running)
        _running.clear()
    for shell in shells:
        stop(shell)


def stop(shell: int) -> None:
    """Ends a command as a stop does: its tree frozen (nothing forks meanwhile), then SIGKILL."""
    tree = _process_tree()
    if not _leads_a_session(shell, tree):
        return  # it ended and its pid may belong to someone else now: nothing of ours to end
    members = tree.freeze_tree(shell) | tree.session_members(shell)
    tree.signal_each(members, signal.SIGKILL)
    tree.signal_group(shell, signal.SIGKILL)
    tree.signal_each({shell}, signal.SIGKILL)


def _leads_a_session(pid: int, tree) -> bool:
    return pid in tree.session_members(pid)


def registration_pipe() -> int | None:
    """The running reaper's pipe (one is started if need be), for a shell to register itself on
    between fork and exec; None where there is no reaper."""
    with _lock:
        reaper = _running_reaper()
        return None if reaper is None or reaper.stdin is None else reaper.stdin.fileno()


def _tell(line: str) -> None:
    global _reaper
    with _lock:
        for _ in range(2):  # a reaper that died is started again, once
            reaper = _running_reaper()
            if reaper is None:
                return
            if _write(reaper, line):
                return
            _reaper = None


def _running_reaper() -> subprocess.Popen[bytes] | None:
    """The reaper, started (and told every running shell) if there is none or it died; under ``_lock``."""
    global _reaper
    if _reaper is None or _reaper.poll() is not None:
        _reaper = _start_reaper()
        if _reaper is not None:
            for shell in _running:
                _write(_reaper, f"+{shell}\n")
    return _reaper


def _write(reaper: subprocess.Popen[bytes], line: str) -> bool:
    try:
        assert reaper.stdin is not None
        reaper.stdin.write(line.encode("ascii"))
        reaper.stdin.flush()
        return True
    except (OSError, ValueError):
        return False


def _start_reaper() -> subprocess.Popen[bytes] | None:
    if not sys.platform.startswith("linux"):
        return None  # /proc and subreapers are Linux's; elsewhere the atexit hook is all there is
    try:
        return subprocess.Popen(
            [sys.executable, "-S", "-I", __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a kill of the kernel's process group must not take it along
            close_fds=True,
            env={},  # it needs nothing of the kernel's environment (its keys least of all)
        )
    except OSError:
        return None


def _process_tree():
    if __name__ != "__main__":
        from jupyter_agent.tools import process_tree

        return process_tree
    loaded = sys.modules.get("process_tree")
    if loaded is None:  # the script: no package on the path (-S -I), the module by its file
        import importlib.util

        spec = importlib.util.spec_from_file_location("process_tree", Path(__file__).with_name("process_tree.py"))
        assert spec is not None and spec.loader is not None
        loaded = sys.modules["process_tree"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
    return loaded


def serve() -> None:
    """The reaper: registered shells from stdin until it closes, then each one stopped."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C meant for the kernel's terminal
    registered: set[int] = set()
    for raw in sys.stdin.buffer:
        line = raw.strip().decode("ascii", errors="replace")
        if line[:1] in "+-" and line[1:].isdigit():
            (registered.add if line[0] == "+" else registered.discard)(int(line[1:]))
    for shell in registered:
        stop(shell)


if __name__ == "__main__":
    serve()
