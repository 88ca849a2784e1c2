"""Finding and killing every process a command started, including those that left its group.

``setsid`` and daemonizing double forks leave the command's process group, so signalling the
group misses them. The shell is made a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``, kept
across ``exec``): an orphaned descendant is re-parented to the shell instead of init, so while the
shell lives its descendants are exactly the processes reachable from it through ``/proc``. A stop
freezes that tree (SIGSTOP, repeated until no new process appears), records it, and signals
every member; a frozen process cannot fork a survivor meanwhile.

A command that ends by itself hangs up its session as a terminal does when it closes
(``process.hang_up``): SIGHUP to every process left in it, then SIGKILL to those that neither died nor
ignore the hangup. ``nohup`` (which ignores it) and ``setsid`` (a session of its own) are how a
command keeps a job running on purpose.

Standard library only: the reaper and the MCP server launcher load this file by path.
"""

from __future__ import annotations

import ctypes
import os
import signal as signals
import sys

_PR_SET_CHILD_SUBREAPER = 36
_FREEZE_ROUNDS = 50
# Programs that, just started, are on their way out of a hangup's reach: ``nohup`` is about to
# ignore it, ``setsid`` to leave the session.
_DETACHERS = (b"nohup", b"setsid")

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


def _processes() -> list[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/<pid>/stat after the command name) of every process, zombies too."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields:
            found.append((int(name), fields))
    return found


def _is_zombie(fields: list[bytes]) -> bool:
    return fields[0] in (b"Z", b"X")


def _live_processes() -> list[tuple[int, list[bytes]]]:
    """(pid, stat fields) of every live, non-zombie process."""
    return [(pid, fields) for pid, fields in _processes() if not _is_zombie(fields)]


def session_members(session: int) -> set[int]:
    """Live processes of the session ``session`` (its leader's pid), from one pass over ``/proc``."""
    return {pid for pid, fields in _live_processes() if len(fields) > 3 and int(fields[3]) == session}


def ignores_hangup(pid: int) -> bool:
    """Whether ``pid`` ignores SIGHUP (``nohup`` set it so): bit 0 of ``SigIgn`` in its status."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"SigIgn:"):
                    return bool(int(line.split()[1], 16) & (1 << (signals.SIGHUP - 1)))
    except (OSError, ValueError, IndexError):
        pass
    return False


def send_hang_up(session: int) -> bool:
    """SIGHUP (and SIGCONT, so stopped jobs hear it) to every process of ``session``; False if it has none."""
    members = session_members(session)
    signal_each(members, signals.SIGHUP)
    signal_each(members, signals.SIGCONT)
    return bool(members)


def settling(session: int, shell_name: bytes) -> set[int]:
    """Members of ``session`` caught between a fork and detaching: a fork of the shell that has not
    exec'd its job yet, or a ``nohup``/``setsid`` that has not yet ignored the hangup or left."""
    found = set()
    for pid in session_members(session):
        try:
            with open(f"/proc/{pid}/comm", "rb") as handle:
                name = handle.read().strip()
        except OSError:
            continue
        if (name == shell_name or name in _DETACHERS) and not ignores_hangup(pid):
            found.add(pid)
    return found


def not_hung_up(session: int) -> set[int]:
    """The processes of ``session`` still alive that do not ignore the hangup."""
    return {pid for pid in session_members(session) if not ignores_hangup(pid)}


def descendants(root: int) -> set[int]:
    """Live (not zombie) processes below ``root``, from one pass over ``/proc``.

    The walk goes through zombies: a multi-threaded process whose main thread has exited shows as a
    zombie while another of its threads still runs, and its children stay its own (not the
    subreaper's) until that last thread exits, so a walk of live processes alone loses them.
    """
    children: dict[int, list[int]] = {}
    zombies: set[int] = set()
    for pid, fields in _processes():
        children.setdefault(int(fields[1]), []).append(pid)
        if _is_zombie(fields):
            zombies.add(pid)
    found: set[int] = set()
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found - zombies


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
