"""Processes a test started, found again by a marker in their command line (``sleep 600 MARK``)."""

from __future__ import annotations

import os
import signal

from jupyter_agent.testing.waiting import wait_until_blocking


def marked(marker: str) -> list[int]:
    """Live processes (zombies aside) whose command line holds ``marker``, this one excepted."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                command = handle.read()
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in command and state not in (b"Z", b"X"):
            found.append(int(name))
    return found


def still_marked(marker: str, timeout: float) -> list[int]:
    """The marked processes still alive once they had ``timeout`` seconds to end."""
    try:
        wait_until_blocking(lambda: not marked(marker), timeout, "the marked processes to end", every=0.05)
    except AssertionError:
        pass  # those still alive are the answer
    return marked(marker)


def kill_marked(marker: str) -> None:
    for pid in marked(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def sleeper(marker: str) -> str:
    """A shell command that sleeps ten minutes in a process ``marked(marker)`` finds."""
    import sys

    return f"{sys.executable} -c 'import time; time.sleep(600)' {marker}"


__all__ = ["kill_marked", "marked", "sleeper", "still_marked"]
