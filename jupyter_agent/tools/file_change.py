"""Changing a file safely: read-before-write checks, the undo hook, and an unchanged-file guard.

A change is planned in a worker thread (resolve, read, verify, compute), announced to
``before_write`` on the event loop thread (the session keeps undo snapshots through it), then
committed in a worker thread that is not abandoned on cancellation. The commit replaces the file
atomically (a full disk or a kill mid-write leaves the original), and only regular files are
read or replaced: a FIFO or a device is refused, never opened for writing. Both reach the file
through the workspace's folder descriptors, so a folder swapped for a link cannot redirect them.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from jupyter_agent.tools.blocking import in_thread
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.read_tracker import ReadTracker, digest_of
from jupyter_agent.tools.regular_file import read_regular, replace_atomically
from jupyter_agent.tools.textfiles import looks_binary
from jupyter_agent.tools.workspace import Workspace

BeforeWrite = Callable[[Path], None]

# write and edit hold a file, its text and the new content in memory at once; past this size
# bash or python (streaming) is the right tool.
MAX_CHANGE_BYTES = 64 * 1024 * 1024


@dataclass
class PlannedChange:
    path: Path
    shown: str
    content: bytes
    previous: bytes | None  # None: the file is new
    report: str


def utf8_of(text: str, shown: str, tool: str, field: str) -> bytes:
    """``text`` as UTF-8. A lone surrogate (JSON lets a model send ``"\\udc80"``) has no UTF-8 form:
    refused naming the argument and the place, so the model can send the character it meant."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolError(
            f"Cannot {tool} {shown}: {field} holds a lone surrogate (U+{ord(text[error.start]):04X} at character "
            f"{error.start + 1}), which UTF-8 cannot encode; nothing was written. Send the character itself."
        ) from None


def existing_bytes(workspace: Workspace, path: Path, tool: str) -> bytes | None:
    """The current bytes of a file about to change, ``None`` when it does not exist yet."""
    shown = workspace.relative(path)
    status = workspace.found(path, shown, "read")
    if status is None:
        return None
    if stat.S_ISDIR(status.st_mode):
        raise ToolError(f"{shown} is a folder; give a file path.")
    return read_regular(workspace, path, shown, tool, MAX_CHANGE_BYTES)


def decode_for_edit(data: bytes, shown: str) -> str:
    if looks_binary(data):
        raise ToolError(f"{shown} is a binary file; edit changes text files only.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # Re-encoding a lossy decode would corrupt the bytes we could not read.
        raise ToolError(f"{shown} is not valid UTF-8 text; edit it with bash or python instead.") from None


async def apply_change(workspace: Workspace, plan: PlannedChange, tracker: ReadTracker, before_write: BeforeWrite | None) -> str:
    if before_write is not None:
        before_write(plan.path)
    await in_thread(lambda stop: _commit(workspace, plan, tracker), cancellable=False)
    return plan.report


def _commit(workspace: Workspace, plan: PlannedChange, tracker: ReadTracker) -> None:
    # The file may have changed between planning and now (another writer, a cell).
    current = existing_bytes(workspace, plan.path, "write")
    if current != plan.previous:
        raise ToolError(f"{plan.shown} changed on disk while it was being changed. Read it again and retry.")
    del current  # a large file need not be held twice while the new content is written
    replace_atomically(workspace, plan.path, plan.content, plan.shown)
    tracker.record(plan.path, digest_of(plan.content))
