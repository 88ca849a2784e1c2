"""Finding and killing every process a command started, including those that left its group.

``setsid`` and daemonizing double forks leave the command's process group, so signalling the
group misses them. The shell is made a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``, kept
across ``exec``): an orphaned descendant is re-parented to the shell instead of init, so while the
shell lives its descendants are exactly the processes reachable from it through ``/proc``. A stop
freezes that tree (SIGSTOP, repeated until no new process appears), records it, and signals
every member; a frozen process cannot fork a survivor meanwhile.
"""

from __future__ import annotations

import ctypes
import os
import signal as signals
import sys

_PR_SET_CHILD_SUBREAPER = 36
_FREEZE_ROUNDS = 50

_prctl = None
if sys.platform.startswith("linux"):
    try:
        _prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        _prctl = None


def become_subreaper() -> None:
    """Runs in the child between fork and exec: only an already-loaded C function, no imports."""
    if _prctl is not None:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def descendants(root: int) -> set[int]:
    """Live (not zombie) processes below ``root``, from one pass over ``/proc``."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] in (b"Z", b"X"):
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    found: set[int] = set()
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def freeze_tree(root: int) -> set[int]:
    """Stops ``root``'s group and every descendant until no new one appears; returns them."""
    signal_group(root, signals.SIGSTOP)
    frozen: set[int] = set()
    for _ in range(_FREEZE_ROUNDS):
        fresh = descendants(root) - frozen
        if not fresh:
            break
        signal_each(fresh, signals.SIGSTOP)
        frozen |= fresh
    return frozen


def signal_each(pids: set[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass
