"""Replacing a file atomically (``atomic_write``, the one way the package writes a whole file), and
reading JSON from one (``parse_json``: nesting too deep for the parser is malformed JSON, not a crash).

The new content goes to a temporary file in the same folder, created ``0600`` (no copy is ever
readable by others while it is written), given its final mode, flushed to the disk when asked and
renamed over the target: a crash, a full disk or a kill mid-write leaves the old content or the
new one, never half of each, and no temporary file. ``dir_fd`` names the folder by a descriptor
(the file tools resolve folders inside the workspace that way, see ``tools/contained.py``), so the
folder written into is the one that was checked.

Standard library only: the tools and the session store both use it.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import sys
from typing import Any

_TEMPORARY_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def atomic_write(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    new_mode: int | None = None,
    keep_owner: bool = False,
    durable: bool = True,
    dir_fd: int | None = None,
) -> None:
    """Replaces ``path`` (a name in ``dir_fd`` when given) with ``data``.

    The mode is ``mode`` when given, else the replaced file's, else ``new_mode``, else what
    ``open()`` would give a new file (``0666`` less the umask). A symbolic link at ``path`` is
    replaced by the file, as a new one (the rename replaces the link, not what it points to). ``keep_owner``: a replaced file
    keeps its owner and group where the process may give them. ``durable``: the content and the
    rename reach the disk (fsync) before this returns. A failure raises the ``OSError`` with the
    target as it was and the temporary file removed.
    """
    path = os.fspath(path)
    folder, name = os.path.split(path)
    previous = _status(path, dir_fd)
    if mode is None:
        mode = stat.S_IMODE(previous.st_mode) if previous is not None else new_mode
    if mode is None:
        mode = 0o666 & ~current_umask()
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, _TEMPORARY_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                # os.write may write less than asked (signals, quotas): continue with the rest.
                view = view[os.write(descriptor, view) :]
            os.fchmod(descriptor, mode)
            if keep_owner and previous is not None and (previous.st_uid, previous.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(descriptor, previous.st_uid, previous.st_gid)
                except PermissionError:
                    pass  # only root may give a file away; the content still goes in
            if durable:
                os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    if durable:
        sync_folder(folder or ".", dir_fd)


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` for what a file holds: JSON nested deeper than the parser can follow (a
    hostile ``.mcp.json`` of 100 000 brackets) is a ``ValueError`` like any other malformed JSON,
    never a bare ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"nested too deeply (more than {sys.getrecursionlimit()} levels)") from None


def current_umask() -> int:
    """The process's umask, read without changing it (``os.umask`` can only read by setting it,
    which races with other threads); Linux shows it in ``/proc/self/status``."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def sync_folder(folder: str | os.PathLike[str], dir_fd: int | None = None) -> None:
    """Flushes a folder's entries (a rename, a new file) to the disk; best effort."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _status(path: str, dir_fd: int | None) -> os.stat_result | None:
    # The entry replaced, not what a link there points to: the rename replaces the link itself, so
    # the new file must not take a mode or an owner from a file it never touches.
    try:
        status = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return None if stat.S_ISLNK(status.st_mode) else status


__all__ = ["atomic_write", "current_umask", "parse_json", "sync_folder"]
