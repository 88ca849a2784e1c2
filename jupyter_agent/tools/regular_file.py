"""Opening the files the tools read and replace: regular files only, never blocking, bounded.

A FIFO in the workspace blocks ``open()`` until a writer appears, and a character device reads
forever (``/dev/zero`` fills the memory): such files are refused by type (``stat`` before opening,
``O_NONBLOCK`` and ``fstat`` after, so a file swapped in between cannot block either). Every file
is reached through the workspace's folder descriptors (``Workspace.open``): a folder swapped for a
link after the path was checked cannot lead the read or the write outside.

Replacing a file is atomic (``jupyter_agent.files.atomic_write``, in the folder reached that way):
the new content goes to a temporary file in the same folder, is flushed to the disk and renamed
over the original, keeping its mode and owner. A full disk, a size limit or a kill mid-write
leaves the original as it was.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from jupyter_agent.files import atomic_write
from jupyter_agent.tools.caps import human_size
from jupyter_agent.tools.contained import OutsideWorkspace
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.workspace import Workspace

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link that was swapped in while it was opened",
}
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
_CHUNK = 1 << 20


def kind_of(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def refuse_special(mode: int, shown: str, tool: str) -> None:
    """A ``ToolError`` unless ``mode`` is a regular file's."""
    if not stat.S_ISREG(mode):
        raise ToolError(f"{shown} is {kind_of(mode)}, not a regular file; {tool} works on regular files only.")


def open_regular(workspace: Workspace, path: Path, shown: str, tool: str) -> tuple[int, os.stat_result]:
    """A read-only descriptor of a regular file and its status; special files are refused unopened."""
    try:
        status = workspace.status(path)
        if status is None:
            raise FileNotFoundError(2, "No such file or directory")
        refuse_special(status.st_mode, shown, tool)
        descriptor = workspace.open(path, _OPEN_FLAGS)
    except OutsideWorkspace as error:
        raise workspace.outside(shown, error.target) from None
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror or error}") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        refuse_special(status.st_mode, shown, tool)
    return descriptor, status


def read_regular(workspace: Workspace, path: Path, shown: str, tool: str, limit: int) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes."""
    descriptor, status = open_regular(workspace, path, shown, tool)
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


def replace_atomically(workspace: Workspace, path: Path, content: bytes, shown: str) -> None:
    """Writes ``content`` to ``path`` through a temporary file renamed over it (``atomic_write``) in
    the folder reached through the workspace's descriptors, keeping the replaced file's mode and owner."""
    try:
        existed = workspace.status(path) is not None
        folder, name = workspace.folder_of(path, create=True)
    except OutsideWorkspace as error:
        raise workspace.outside(shown, error.target) from None
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {error.strerror or error} (no file was changed).") from None
    try:
        atomic_write(name, content, keep_owner=True, dir_fd=folder)
    except OSError as error:
        kept = "the original file is unchanged" if existed else "no file was created"
        raise ToolError(f"Cannot write {shown}: {error.strerror or error} ({kept}).") from None
    finally:
        os.close(folder)
