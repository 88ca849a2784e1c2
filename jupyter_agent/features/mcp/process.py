"""The stdio servers' processes: their pid files, and killing a process group for good."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from jupyter_agent.tools import process_tree

_KILL_GRACE = 0.5  # after SIGTERM, before SIGKILL


def new_pidfile(name: str) -> Path:
    """An empty file the launcher writes the server's pid into (see ``launcher.py``)."""
    handle, path = tempfile.mkstemp(prefix=f"jupyter-agent-mcp-{name[:20]}-", suffix=".pid")
    os.close(handle)
    return Path(path)


def read_pid(pidfile: Path) -> int | None:
    try:
        return int(pidfile.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def is_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, is not alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): signal 0 reached it
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def kill_group(pid: int, grace: float = _KILL_GRACE) -> None:
    """SIGTERM to the server's process group (it leads one of its own), SIGKILL if it lingers.

    The launcher ends what the server started, a ``setsid`` child outside the group too, once it
    gets the SIGTERM; a loaded machine may not give it the grace to. Before the SIGKILL takes it,
    its whole tree (found below it while it still lives) is stopped and killed from here.
    """
    if sys.platform == "win32":
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if sig == signal.SIGKILL:
            process_tree.signal_each(process_tree.freeze_tree(pid), signal.SIGKILL)
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + grace
        while is_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not is_alive(pid):
            return
