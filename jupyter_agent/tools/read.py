"""The ``read`` tool: numbered lines of a text file, a window by offset/limit, images as images."""

from __future__ import annotations

import base64
import threading
from pathlib import Path

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.tools.blocking import Stopped, in_thread
from jupyter_agent.tools.caps import OutputCaps, clip_line, human_size, utf8_len
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.read_tracker import ReadTracker, digest_of, new_digest
from jupyter_agent.tools.textfiles import SNIFF_BYTES, decode_text, image_type, looks_binary
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "Read a file in the workspace. Text comes back as numbered lines `N|text`; use offset (first "
    "line, 1-based) and limit to page through long files. Images (png, jpg, gif, webp) come back "
    "as images. Read a file before editing or overwriting it."
)


class ReadArgs(BaseModel):
    path: str = Field(description="File path, relative to the workspace (or absolute inside it).")
    offset: int | None = Field(default=None, ge=1, description="First line to return, 1-based.")
    limit: int | None = Field(default=None, ge=1, description="Maximum number of lines to return.")


def read_tool(workspace: Workspace, tracker: ReadTracker, caps: OutputCaps) -> AgentTool:
    async def execute(args: ReadArgs, signal) -> list:
        return await in_thread(lambda stop: read_file(workspace, tracker, caps, args, stop))

    return AgentTool(
        name="read", description=DESCRIPTION, parameters=ReadArgs, execute=execute, label="Read", read_only=True
    )


def read_file(
    workspace: Workspace, tracker: ReadTracker, caps: OutputCaps, args: ReadArgs, stop: threading.Event
) -> list:
    path = workspace.resolve(args.path)
    shown = workspace.relative(path)
    if path.is_dir():
        raise ToolError(f"{shown} is a folder, not a file. Use the list tool to see its contents.")
    if not path.exists():
        raise ToolError(f"File not found: {shown}. Use list or glob to find the right path.")
    mime_type = image_type(path)
    if mime_type is not None:
        return _read_image(path, shown, mime_type, tracker, caps)
    try:
        with path.open("rb") as handle:
            return [TextContent(text=_numbered_window(handle, path, shown, tracker, caps, args, stop))]
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror or error}") from None


def _read_image(path: Path, shown: str, mime_type: str, tracker: ReadTracker, caps: OutputCaps) -> list:
    size = path.stat().st_size
    if size > caps.max_image_bytes:
        raise ToolError(
            f"{shown} is an image of {human_size(size)}, over the {human_size(caps.max_image_bytes)} "
            "limit for images. Make a smaller copy (e.g. with bash) and read that."
        )
    data = path.read_bytes()
    tracker.record(path, digest_of(data))
    return [
        TextContent(text=f"Image {shown} ({mime_type}, {human_size(size)})"),
        ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime_type),
    ]


class _Window:
    """The lines from ``first`` on that fit the line and byte caps, numbered."""

    def __init__(self, first: int, limit: int, caps: OutputCaps) -> None:
        self.first = first
        self.limit = limit
        self.caps = caps
        self.lines: list[str] = []
        self.size = 0
        self.cut_by_bytes = False

    @property
    def full(self) -> bool:
        return self.cut_by_bytes or len(self.lines) >= self.limit

    def offer(self, number: int, raw: bytes) -> None:
        if number < self.first or self.full:
            return
        line = f"{number}|" + clip_line(decode_text(raw).rstrip("\r"), self.caps.max_line_chars)
        cost = utf8_len(line) + 1
        if self.size + cost > self.caps.max_bytes and self.lines:
            self.cut_by_bytes = True
            return
        self.lines.append(line)
        self.size += cost


def _numbered_window(
    handle, path: Path, shown: str, tracker: ReadTracker, caps: OutputCaps, args: ReadArgs, stop: threading.Event
) -> str:
    # The whole file is hashed (read-before-write needs its digest) even when one window is shown.
    digest = new_digest()
    window = _Window(args.offset or 1, min(args.limit or caps.max_lines, caps.max_lines), caps)
    total = 0
    pending = b""
    for index, block in enumerate(iter(lambda: handle.read(1 << 20), b"")):
        if index == 0 and looks_binary(block[:SNIFF_BYTES]):
            raise ToolError(f"{shown} is a binary file; read shows text files and images only.")
        if stop.is_set():
            raise Stopped()
        digest.update(block)
        if window.full:
            # Past the window only the line count matters; counting is far cheaper than splitting.
            total += block.count(b"\n")
            pending = b"" if block.endswith(b"\n") else block[-1:]
            continue
        parts = (pending + block).split(b"\n")
        pending = parts.pop()
        for raw in parts:
            total += 1
            window.offer(total, raw)
    if pending:
        total += 1
        window.offer(total, pending)
    tracker.record(path, digest.digest())
    if total == 0:
        return f"{shown} is empty."
    if window.first > total:
        raise ToolError(f"Offset {window.first} is past the end of {shown} ({total} lines).")
    lines = window.lines
    last = window.first + len(lines) - 1
    if last < total:
        reason = " (output size limit reached)" if window.cut_by_bytes else ""
        lines.append(f"[Showing lines {window.first}-{last} of {total}{reason}. Use offset={last + 1} to read on.]")
    return "\n".join(lines)
