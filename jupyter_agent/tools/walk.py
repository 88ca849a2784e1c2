"""Walking the workspace for list, grep and glob: sorted, bounded, never out through a link.

Linked folders are not entered (that is how ``grep -r`` avoids loops and escapes); linked files
are kept only when their target is inside the workspace. Walks yield folders and regular files
only: a FIFO blocks whoever opens it and a device can be read forever.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Iterator

from jupyter_agent.tools.blocking import Stopped
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


@dataclass(frozen=True)
class Entry:
    path: str  # absolute
    relative: str  # relative to the walk's start folder, forward slashes
    name: str
    is_dir: bool
    depth: int  # 1 for the start folder's own entries


def scan_sorted(folder: str, workspace: Workspace, *, hide_dotfiles: bool = False) -> list[os.DirEntry]:
    """A folder's usable entries, sorted by name; unreadable folders are empty."""
    try:
        with os.scandir(folder) as iterator:
            entries = list(iterator)
    except OSError:
        return []
    usable = []
    for entry in entries:
        if hide_dotfiles and entry.name.startswith("."):
            continue
        if entry.is_symlink():
            if not _link_target_usable(entry, workspace):
                continue
        elif entry.is_dir(follow_symlinks=False) and entry.name in IGNORED_DIRS:
            continue
        usable.append(entry)
    usable.sort(key=lambda item: item.name)
    return usable


def _link_target_usable(entry: os.DirEntry, workspace: Workspace) -> bool:
    # Linked folders could loop or lead out; linked files count only when they stay inside.
    try:
        if entry.is_dir():
            return False
    except OSError:
        return False
    return workspace.contains(os.path.realpath(entry.path)) and os.path.exists(entry.path)


def entry_is_dir(entry: os.DirEntry) -> bool:
    # Linked folders were dropped by scan_sorted, so no link reaches here as a folder.
    return entry.is_dir(follow_symlinks=False)


def _is_regular(entry: os.DirEntry) -> bool:
    # The directory entry's type: no stat call except for links and file systems without d_type.
    try:
        return entry.is_file()
    except OSError:
        return False


def walk(
    start: str,
    workspace: Workspace,
    *,
    stop: threading.Event | None = None,
    max_depth: int | None = None,
) -> Iterator[Entry]:
    """Depth-first, in name order: a folder is yielded before its contents."""
    stack: list[tuple[str, str, int, list[os.DirEntry]]] = []
    stack.append((start, "", 1, scan_sorted(start, workspace)[::-1]))
    while stack:
        folder, prefix, depth, pending = stack[-1]
        if not pending:
            stack.pop()
            continue
        if stop is not None and stop.is_set():
            raise Stopped()
        entry = pending.pop()
        relative = prefix + entry.name
        is_dir = entry_is_dir(entry)
        if not is_dir and not _is_regular(entry):
            continue
        yield Entry(entry.path, relative, entry.name, is_dir, depth)
        if is_dir and (max_depth is None or depth < max_depth):
            stack.append((entry.path, relative + "/", depth + 1, scan_sorted(entry.path, workspace)[::-1]))
