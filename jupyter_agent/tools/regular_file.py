"""Opening the files the tools read and replace: regular files only, never blocking, bounded.

A FIFO in the workspace blocks ``open()`` until a writer appears, and a character device reads
forever (``/dev/zero`` fills the memory): such files are refused by type (``stat`` before opening,
``O_NONBLOCK`` and ``fstat`` after, so a file swapped in between cannot block either).

Replacing a file is atomic: the new content goes to a temporary file in the same folder, is
flushed to the disk and renamed over the original, keeping its mode and owner. A full disk, a
size limit or a kill mid-write leaves the original as it was.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from jupyter_agent.tools.caps import human_size
from jupyter_agent.tools.errors import ToolError

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


def kind_of(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def refuse_special(mode: int, shown: str, tool: str) -> None:
    """A ``ToolError`` unless ``mode`` is a regular file's."""
    if not stat.S_ISREG(mode):
        raise ToolError(f"{shown} is {kind_of(mode)}, not a regular file; {tool} works on regular files only.")


def open_regular(path: str | os.PathLike[str], shown: str, tool: str) -> tuple[int, os.stat_result]:
    """A read-only descriptor of a regular file and its status; special files are refused unopened."""
    try:
        refuse_special(os.stat(path).st_mode, shown, tool)
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror or error}") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        refuse_special(status.st_mode, shown, tool)
    return descriptor, status


def read_regular(path: str | os.PathLike[str], shown: str, tool: str, limit: int) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes."""
    descriptor, status = open_regular(path, shown, tool)
    try:
        if status.st_size > limit:
            raise ToolError(
                f"{shown} is {human_size(status.st_size)}, over the {human_size(limit)} that {tool} changes "
                "in one piece. Use bash or python for a file this large."
            )
        chunks = []
        size = 0
        while chunk := os.read(descriptor, _CHUNK):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew while being read
                raise ToolError(f"{shown} grew past {human_size(limit)} while being read; retry when it is stable.")
        return b"".join(chunks)
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror or error}") from None
    finally:
        os.close(descriptor)


def replace_atomically(path: Path, content: bytes, shown: str) -> None:
    """Writes ``content`` to ``path`` through a temporary file renamed over it."""
    folder = path.parent
    try:
        previous = os.stat(path)
    except FileNotFoundError:
        previous = None
    try:
        os.makedirs(folder, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {error.strerror or error}") from None
    try:
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
            _copy_mode_and_owner(descriptor, previous)
        finally:
            os.close(descriptor)
        os.replace(temporary, path)
    except OSError as error:
        _remove_quietly(temporary)
        kept = "the original file is unchanged" if previous is not None else "no file was created"
        raise ToolError(f"Cannot write {shown}: {error.strerror or error} ({kept}).") from None
    except BaseException:
        _remove_quietly(temporary)
        raise
    _sync_folder(folder)


def _copy_mode_and_owner(descriptor: int, previous: os.stat_result | None) -> None:
    if previous is None:
        # mkstemp creates 0600; a new file gets what open() would have given it.
        os.fchmod(descriptor, 0o666 & ~current_umask())
        return
    os.fchmod(descriptor, stat.S_IMODE(previous.st_mode))
    if (previous.st_uid, previous.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.fchown(descriptor, previous.st_uid, previous.st_gid)
        except PermissionError:
            pass  # only root may give a file away; the content still goes in


def current_umask() -> int:
    # os.umask() can only be read by setting it, which races with other threads; Linux shows it.
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _sync_folder(folder: Path) -> None:
    # The rename itself reaches the disk only when the folder is flushed.
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
