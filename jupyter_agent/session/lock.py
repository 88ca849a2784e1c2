"""One writer per session file: an ``flock`` on the session file, its holder named beside it.

Two kernels on one notebook would interleave lines in one file; the second writer gets a
``SessionLockedError`` naming the file and the holder's pid instead. The lock is an ``flock`` on
the session file itself, which the OS drops when its holder dies (a lock left by a dead process
is simply taken over) and which deleting a file beside it cannot undo. The lock file
(``main.jsonl.lock``) only carries the holder's pid and host for that message. Where ``fcntl`` is
missing, the lock file is created exclusively and a lock whose pid is no longer alive is stale.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from jupyter_agent.errors import UserFacingError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

# Bounds the race where a holder deletes the lock file between our open and our flock.
_ATTEMPTS = 5


class SessionLockedError(RuntimeError, UserFacingError):
    """Another writer (another kernel, or another SessionStore) holds the session file."""


def lock_path(session_path: Path) -> Path:
    return session_path.with_name(session_path.name + ".lock")


class SessionLock:
    """Held from ``acquire`` until ``release``; ``release`` is idempotent."""

    def __init__(self, session_path: Path):
        self.session_path = session_path
        self.path = lock_path(session_path)
        self._fd: int | None = None
        self._session_fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Creates the session file if needed; raises ``SessionLockedError`` when another writer holds it."""
        if self._fd is not None:
            return
        if fcntl is None:
            self._fd = _acquire_exclusive(self.path, self.session_path)
            return
        session_fd = os.open(self.session_path, os.O_RDONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(session_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(session_fd)
            raise SessionLockedError(_locked_message(self.session_path, _read_holder_file(self.path))) from None
        try:
            self._fd = self._acquire_holder_file()
        except BaseException:
            os.close(session_fd)
            raise
        self._session_fd = session_fd

    def _acquire_holder_file(self) -> int:
        for _ in range(_ATTEMPTS):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_holder(fd)
                os.close(fd)
                raise SessionLockedError(_locked_message(self.session_path, holder)) from None
            if _same_file(fd, self.path):
                _write_holder(fd)
                return fd
            os.close(fd)  # the previous holder removed this lock file after we opened it: retry
        raise SessionLockedError(_locked_message(self.session_path, None))

    def release(self) -> None:
        fd, self._fd = self._fd, None
        session_fd, self._session_fd = self._session_fd, None
        if fd is None:
            return
        if fcntl is None:
            os.close(fd)  # Windows cannot remove an open file
        try:
            # Removed while still locked, so a waiting opener notices (_same_file) and retries.
            os.unlink(self.path)
        except OSError:
            pass
        if fcntl is not None:
            os.close(fd)
        if session_fd is not None:
            os.close(session_fd)  # last: the session stays locked until its holder record is gone


def _locked_message(session_path: Path, holder: dict | None) -> str:
    holder = holder or {}
    pid = holder.get("pid")
    if pid == os.getpid():
        who = f"this process (pid {pid}): close() the other SessionStore first"
    elif pid is not None:
        who = f"process {pid}" + (f" on {holder['host']}" if holder.get("host") else "")
        who += " (another kernel?); stop it or use another session name"
    else:
        who = "another process; stop it or use another session name"
    return f"session file {session_path} is already open for writing by {who}"


def _holder_record() -> bytes:
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode()


def _write_holder(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, _holder_record())


def _read_holder(fd: int) -> dict | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, 4096)
        holder = json.loads(data)
    except (OSError, ValueError):
        return None  # the holder has not written its pid yet
    return holder if isinstance(holder, dict) else None


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def _acquire_exclusive(path: Path, session_path: Path) -> int:
    for _ in range(_ATTEMPTS):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            holder = _read_holder_file(path)
            if holder is not None and _alive(holder):
                raise SessionLockedError(_locked_message(session_path, holder)) from None
            try:
                os.unlink(path)  # stale: its process is gone
            except FileNotFoundError:
                pass
            continue
        _write_holder(fd)
        return fd
    raise SessionLockedError(_locked_message(session_path, _read_holder_file(path)))


def _read_holder_file(path: Path) -> dict | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_holder(fd)
    finally:
        os.close(fd)


def _alive(holder: dict) -> bool:
    pid = holder.get("pid")
    if not isinstance(pid, int):
        return False
    if holder.get("host") not in (None, socket.gethostname()):
        return True  # a pid on another machine cannot be checked: assume it still runs
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists but belongs to someone else
    return True


__all__ = ["SessionLock", "SessionLockedError", "lock_path"]
