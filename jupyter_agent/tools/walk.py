"""Walking the workspace for list, grep and glob: sorted, bounded, never out through a link.

Linked folders are not entered (that is how ``grep -r`` avoids loops and escapes); linked files
are kept only when their target is inside the workspace. Walks yield folders and regular files
only: a FIFO blocks whoever opens it and a device can be read forever.

Folders are read and entered through descriptors (``scandir`` of a descriptor, each subfolder
opened relative to its parent with ``O_NOFOLLOW``), and a file found is opened the same way
(``open_entry``): a folder swapped for a link while the walk runs is not entered, so no name or
content from outside the workspace is ever listed or searched.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from typing import Iterator

from jupyter_agent.tools.blocking import Stopped
from jupyter_agent.tools.contained import FOLDER_FLAGS
from jupyter_agent.tools.workspace import Workspace

# Tool and package caches: never what the model is looking for, and often enormous.
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".ipynb_checkpoints",
        ".next",
        ".turbo",
    }
)
_FILE_FLAGS = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class Listed:
    """One usable entry of a folder, as the folder's descriptor showed it."""

    name: str
    is_dir: bool
    regular: bool  # a regular file (or a link to one inside the workspace)
    linked: bool  # a symbolic link (to a file inside): opened through the workspace, not the folder


@dataclass(frozen=True)
class Entry:
    path: str  # absolute
    relative: str  # relative to the walk's start folder, forward slashes
    name: str
    is_dir: bool
    depth: int  # 1 for the start folder's own entries
    folder: int = -1  # descriptor of the folder holding it while the walk is in it; -1 for a linked file


def scan_sorted(folder: int, where: str, workspace: Workspace, *, hide_dotfiles: bool = False) -> list[Listed]:
    """The usable entries of the folder open as ``folder`` (at path ``where``), sorted by name."""
    try:
        with os.scandir(folder) as iterator:
            entries = list(iterator)
    except OSError:
        return []
    usable = []
    for entry in entries:
        if hide_dotfiles and entry.name.startswith("."):
            continue
        try:
            if entry.is_symlink():
                if _linked_file_inside(os.path.join(where, entry.name), workspace):
                    usable.append(Listed(entry.name, False, True, True))
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and entry.name in IGNORED_DIRS:
                continue
            usable.append(Listed(entry.name, is_dir, not is_dir and entry.is_file(follow_symlinks=False), False))
        except OSError:
            continue
    usable.sort(key=lambda item: item.name)
    return usable


def _linked_file_inside(path: str, workspace: Workspace) -> bool:
    # Linked folders could loop or lead out; linked files count only when they stay inside.
    try:
        status = workspace.status(path)
    except OSError:
        return False
    return status is not None and stat.S_ISREG(status.st_mode)


def open_folder(workspace: Workspace, path: str) -> int | None:
    """A descriptor of the folder at ``path`` reached through the workspace; None when it cannot be."""
    try:
        return workspace.open(path, FOLDER_FLAGS)
    except OSError:
        return None


def open_entry(entry: Entry, workspace: Workspace, flags: int) -> int:
    """Opens a file the walk yielded: relative to its folder, or through the workspace if it is a link."""
    if entry.folder >= 0:
        return os.open(entry.name, flags | _FILE_FLAGS, dir_fd=entry.folder)
    return workspace.open(entry.path, flags)


def walk(
    start: str,
    workspace: Workspace,
    *,
    stop: threading.Event | None = None,
    max_depth: int | None = None,
) -> Iterator[Entry]:
    """Depth-first, in name order: a folder is yielded before its contents.

    An entry's ``folder`` descriptor is valid until the walk is resumed past its folder's entries.
    """
    top = open_folder(workspace, start)
    if top is None:
        return
    stack: list[tuple[int, str, str, int, list[Listed]]] = [(top, start, "", 1, scan_sorted(top, start, workspace)[::-1])]
    try:
        while stack:
            folder, where, prefix, depth, pending = stack[-1]
            if not pending:
                os.close(folder)
                stack.pop()
                continue
            if stop is not None and stop.is_set():
                raise Stopped()
            item = pending.pop()
            if not item.is_dir and not item.regular:
                continue
            relative = prefix + item.name
            path = os.path.join(where, item.name)
            yield Entry(path, relative, item.name, item.is_dir, depth, -1 if item.linked else folder)
            if item.is_dir and (max_depth is None or depth < max_depth):
                try:
                    child = os.open(item.name, FOLDER_FLAGS, dir_fd=folder)
                except OSError:
                    continue  # swapped for a link or a file since it was listed: not entered
                stack.append((child, path, relative + "/", depth + 1, scan_sorted(child, path, workspace)[::-1]))
    finally:
        for folder, *_ in stack:
            os.close(folder)
