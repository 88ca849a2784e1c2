"""The ``list`` tool: a folder as an indented tree with file sizes.

Folders are expanded breadth-first until the entry cap, so a big tree shows its top levels
completely instead of one deep corner. Dotfiles and cache folders are hidden.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import deque
from typing import NamedTuple

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.blocking import Stopped, in_thread
from jupyter_agent.tools.caps import OutputCaps, human_size, truncate_head
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.walk import Listed, open_folder, scan_sorted
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "List a folder of the workspace as a tree with file sizes. Hidden files and cache folders "
    "(.git, node_modules, __pycache__, …) are left out. Large trees are cut; list a subfolder to see more."
)


class ListArgs(BaseModel):
    path: str = Field(default=".", description="Folder to list, relative to the workspace.")


def list_tool(workspace: Workspace, caps: OutputCaps) -> AgentTool:
    async def execute(args: ListArgs, signal) -> list:
        text = await in_thread(lambda stop: list_folder(workspace, caps, args.path, stop))
        return [TextContent(text=text)]

    return AgentTool(name="list", description=DESCRIPTION, parameters=ListArgs, execute=execute, label="List", read_only=True)


def list_folder(workspace: Workspace, caps: OutputCaps, path: str, stop: threading.Event) -> str:
    folder = workspace.resolve(path)
    shown = workspace.relative(folder)
    found = workspace.found(folder, shown, "list")
    if found is None:
        raise ToolError(f"Folder not found: {shown}.")
    if not stat.S_ISDIR(found.st_mode):
        return f"{shown} ({human_size(found.st_size)})"
    children, unexpanded, total, root_omitted = _collect(str(folder), workspace, caps.list_max_entries, stop)
    if total == 0:
        return f"{shown}/ is empty (hidden files and cache folders are not listed)."
    lines = [f"{shown}/"]
    _render(str(folder), children, unexpanded, 1, lines)
    if root_omitted:
        lines.append(f"[{root_omitted} more entries in {shown}/ not shown; use glob to find specific files.]")
    if unexpanded:
        lines.append(
            f"[Listing cut at {caps.list_max_entries} entries; folders marked … were not expanded. "
            "List one of them to see its contents.]"
        )
    return truncate_head("\n".join(lines), caps, "List a subfolder to see the rest.")


class _Shown(NamedTuple):
    name: str
    is_dir: bool
    size: str  # a file's size, "unreadable" when it cannot be read; "" for a folder


def _collect(root: str, workspace: Workspace, cap: int, stop: threading.Event):
    """Folder path -> its entries, breadth-first until ``cap`` entries; each folder is reached
    through the workspace's descriptors and its sizes read while it is open."""
    children: dict[str, list[_Shown]] = {}
    unexpanded: set[str] = set()
    queue = deque([root])
    total = 0
    root_omitted = 0
    while queue:
        if stop.is_set():
            raise Stopped()
        folder = queue.popleft()
        if total >= cap:
            unexpanded.add(folder)
            continue
        entries = _entries(folder, workspace)
        # Folders first: the shape of a project reads better than an alphabetical mix.
        entries.sort(key=lambda entry: (not entry.is_dir, entry.name))
        if total + len(entries) > cap and folder != root:
            unexpanded.add(folder)
            continue
        if folder == root:
            root_omitted = max(len(entries) - cap, 0)
            entries = entries[:cap]
        children[folder] = entries
        total += len(entries)
        queue.extend(os.path.join(folder, entry.name) for entry in entries if entry.is_dir)
    return children, unexpanded, total, root_omitted


def _entries(folder: str, workspace: Workspace) -> list[_Shown]:
    descriptor = open_folder(workspace, folder)
    if descriptor is None:
        return []
    try:
        return [
            _Shown(item.name, item.is_dir, "" if item.is_dir else _size(descriptor, folder, item, workspace))
            for item in scan_sorted(descriptor, folder, workspace, hide_dotfiles=True)
        ]
    finally:
        os.close(descriptor)


def _render(folder: str, children, unexpanded: set[str], depth: int, lines: list[str]) -> None:
    indent = "  " * depth
    for entry in children.get(folder, []):
        if entry.is_dir:
            path = os.path.join(folder, entry.name)
            marker = " …" if path in unexpanded else ""
            lines.append(f"{indent}{entry.name}/{marker}")
            _render(path, children, unexpanded, depth + 1, lines)
        else:
            lines.append(f"{indent}{entry.name} ({entry.size})")


def _size(folder: int, where: str, item: Listed, workspace: Workspace) -> str:
    try:
        if item.linked:
            status = workspace.status(os.path.join(where, item.name))
        else:
            status = os.stat(item.name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return "unreadable"
    return human_size(status.st_size) if status is not None else "unreadable"
