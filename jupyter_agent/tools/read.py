"""The ``read`` tool: numbered lines of a text file, a window by offset/limit, images as images."""

from __future__ import annotations

import base64
import os
import stat
import threading
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.tools.blocking import Stopped, in_thread
from jupyter_agent.tools.caps import OutputCaps, clip_line, human_size, utf8_len
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.read_tracker import ReadTracker, digest_of, new_digest
from jupyter_agent.tools.regular_file import open_regular
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

    return AgentTool(name="read", description=DESCRIPTION, parameters=ReadArgs, execute=execute, label="Read", read_only=True)


def read_file(workspace: Workspace, tracker: ReadTracker, caps: OutputCaps, args: ReadArgs, stop: threading.Event) -> list:
    path = workspace.resolve(args.path)
    shown = workspace.relative(path)
    found = workspace.found(path, shown, "read")
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise ToolError(f"{shown} is a folder, not a file. Use the list tool to see its contents.")
    if found is None:
        raise ToolError(f"File not found: {shown}. Use list or glob to find the right path.")
    descriptor, status = open_regular(workspace, path, shown, "read")
    try:
        with os.fdopen(descriptor, "rb") as handle:
            mime_type = image_type(path)
            if mime_type is not None:
                return _read_image(handle, status.st_size, path, shown, mime_type, tracker, caps)
            return [TextContent(text=_numbered_window(handle, status.st_size, path, shown, tracker, caps, args, stop))]
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror or error}") from None


def _read_image(
    handle: BinaryIO, size: int, path: Path, shown: str, mime_type: str, tracker: ReadTracker, caps: OutputCaps
) -> list:
    if size > caps.max_image_bytes:
        raise ToolError(
            f"{shown} is an image of {human_size(size)}, over the {human_size(caps.max_image_bytes)} "
            "limit for images. Make a smaller copy (e.g. with bash) and read that."
        )
    data = handle.read(caps.max_image_bytes + 1)
    tracker.record(path, digest_of(data))
    return [
        TextContent(text=f"Image {shown} ({mime_type}, {human_size(size)})"),
        ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime_type),
    ]


class _Window:
    """The lines from ``first`` on that fit the line and byte caps, numbered.

    A line is offered as at most ``keep`` bytes (enough for its clipped form) and its full length,
    so a 200 MB line costs no more than a short one.
    """

    def __init__(self, first: int, limit: int, caps: OutputCaps) -> None:
        self.first = first
        self.limit = limit
        self.caps = caps
        self.keep = caps.max_line_chars * 4 + 4  # a UTF-8 character is at most 4 bytes
        self.lines: list[str] = []
        self.size = 0
        self.cut_by_bytes = False

    @property
    def full(self) -> bool:
        return self.cut_by_bytes or len(self.lines) >= self.limit

    def offer(self, number: int, raw: bytes, length: int) -> None:
        if number < self.first or self.full:
            return
        text = decode_text(raw).rstrip("\r")
        if length < 0:  # a line cut by the scan limit: its length is not known
            text = text[: self.caps.max_line_chars] + "… [the line goes on past what was read]"
        elif length > len(raw):
            text = text[: self.caps.max_line_chars]
            text += f"… [{length - utf8_len(text)} more bytes]"
        else:
            text = clip_line(text, self.caps.max_line_chars)
        line = f"{number}|{text}"
        cost = utf8_len(line) + 1
        if self.size + cost > self.caps.max_bytes and self.lines:
            self.cut_by_bytes = True
            return
        self.lines.append(line)
        self.size += cost


class _LineSplitter:
    """Numbers the lines of a stream of blocks, keeping only the head of a line that spans blocks."""

    def __init__(self, window: _Window) -> None:
        self.window = window
        self.total = 0
        self.head = b""  # the start of the unfinished line, at most window.keep bytes
        self.length = 0  # the unfinished line's full length so far

    def feed(self, block: bytes) -> None:
        window = self.window
        if window.full:
            # Past the window only the line count matters; counting is far cheaper than splitting.
            newlines = block.count(b"\n")
            self.total += newlines
            self.length = (self.length + len(block)) if not newlines else len(block) - block.rfind(b"\n") - 1
            return
        parts = block.split(b"\n")
        last = parts.pop()
        if parts:
            first = parts[0]
            self._finish(self.head + first[: window.keep - len(self.head)], self.length + len(first))
            for raw in parts[1:]:
                self._finish(raw[: window.keep], len(raw))
            self.head, self.length = b"", 0
        if len(self.head) < window.keep:
            self.head += last[: window.keep - len(self.head)]
        self.length += len(last)

    def close(self, *, cut: bool = False) -> None:
        """The last line: the end of the file, or where reading stopped (``cut``)."""
        if self.length:
            self._finish(self.head, -1 if cut else self.length)

    def _finish(self, raw: bytes, length: int) -> None:
        self.total += 1
        self.window.offer(self.total, raw, length)


def _numbered_window(
    handle: BinaryIO,
    size: int,
    path: Path,
    shown: str,
    tracker: ReadTracker,
    caps: OutputCaps,
    args: ReadArgs,
    stop: threading.Event,
) -> str:
    # The whole file is hashed (read-before-write needs its digest) even when one window is shown,
    # unless it is over the cap: then only the window is read, and the file cannot be changed by edit.
    whole = size <= caps.read_max_file_bytes
    digest = new_digest()
    window = _Window(args.offset or 1, min(args.limit or caps.max_lines, caps.max_lines), caps)
    lines = _LineSplitter(window)
    scanned = 0
    for index, block in enumerate(iter(lambda: handle.read(1 << 20), b"")):
        if index == 0 and looks_binary(block[:SNIFF_BYTES]):
            raise ToolError(f"{shown} is a binary file; read shows text files and images only.")
        if stop.is_set():
            raise Stopped()
        scanned += len(block)
        if whole:
            digest.update(block)
        elif window.full:
            break
        elif scanned > caps.read_max_file_bytes:
            lines.feed(block[: len(block) - (scanned - caps.read_max_file_bytes)])
            lines.close(cut=True)
            break
        lines.feed(block)
    else:
        lines.close()
    if not whole:
        return _partial_report(window, size, shown, caps)
    tracker.record(path, digest.digest())
    total = lines.total
    if total == 0:
        return f"{shown} is empty."
    if window.first > total:
        raise ToolError(f"Offset {window.first} is past the end of {shown} ({total} lines).")
    shown_lines = window.lines
    last = window.first + len(shown_lines) - 1
    if last < total:
        reason = " (output size limit reached)" if window.cut_by_bytes else ""
        shown_lines.append(f"[Showing lines {window.first}-{last} of {total}{reason}. Use offset={last + 1} to read on.]")
    return "\n".join(shown_lines)


def _partial_report(window: _Window, size: int, shown: str, caps: OutputCaps) -> str:
    limit = human_size(caps.read_max_file_bytes)
    if not window.lines:
        raise ToolError(
            f"{shown} is {human_size(size)}; read scans only its first {limit} and line {window.first} is "
            f"not in them. Use bash (e.g. sed -n '{window.first},+99p' or tail) for the rest."
        )
    last = window.first + len(window.lines) - 1
    return "\n".join(
        window.lines
        + [
            f"[Showing lines {window.first}-{last}. {shown} is {human_size(size)}, over the {limit} read takes "
            f"whole, so its length was not counted and edit or write cannot change it. Use offset={last + 1} "
            "to read on, or bash (sed -n, tail, wc -l) for the rest.]"
        ]
    )
