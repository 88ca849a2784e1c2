"""Runs an stdio MCP server so that it cannot outlive the kernel.

The kernel starts ``python -S -I launcher.py PIDFILE COMMAND ARGS...`` instead of ``COMMAND``.
The launcher writes its pid to PIDFILE (the SDK does not expose the process it spawns, and the
kernel's shutdown hook kills by pid), asks Linux to SIGKILL it when the kernel dies
(``PR_SET_PDEATHSIG``: this covers a kernel killed with SIGKILL, where no hook runs), and then
``exec``s the server: same pid, same process group (the SDK gives it a session of its own).

Standard library only and no imports of this package: it runs with ``-S -I`` to start fast.
"""

from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the kernel died before prctl took effect
        os._exit(1)


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        sys.stderr.write("usage: launcher.py PIDFILE PARENT_PID COMMAND [ARGS...]\n")
        os._exit(2)
    pidfile, parent, command = argv[0], int(argv[1]), argv[2:]
    _die_with_parent(parent)
    with open(pidfile, "w", encoding="ascii") as handle:
        handle.write(str(os.getpid()))
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write(f"cannot run {command[0]!r}: {error.strerror or error}\n")
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
