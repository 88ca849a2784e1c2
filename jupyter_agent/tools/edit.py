"""The ``edit`` tool: replace an exact, unique piece of a file (or every copy), answer with a diff."""

from __future__ import annotations

import threading

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.blocking import in_thread
from jupyter_agent.tools.caps import OutputCaps, truncate_head
from jupyter_agent.tools.edit_diff import edit_diff, occurrences
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.file_change import (
    BeforeWrite,
    PlannedChange,
    apply_change,
    decode_for_edit,
    existing_bytes,
    utf8_of,
)
from jupyter_agent.tools.read_tracker import ReadTracker
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "Edit a file by replacing old_text with new_text. old_text must match the file exactly "
    "(whitespace included) and only once, unless replace_all is true. Read the file first. "
    "The result shows a diff."
)


class EditArgs(BaseModel):
    path: str = Field(description="File to edit, relative to the workspace.")
    old_text: str = Field(description="Exact text to replace, with enough context to be unique.")
    new_text: str = Field(description="Replacement text.")
    replace_all: bool = Field(default=False, description="Replace every occurrence instead of exactly one.")


def edit_tool(workspace: Workspace, tracker: ReadTracker, caps: OutputCaps, before_write: BeforeWrite | None) -> AgentTool:
    async def execute(args: EditArgs, signal) -> list:
        plan = await in_thread(lambda stop: plan_edit(workspace, tracker, caps, args, stop))
        return [TextContent(text=await apply_change(workspace, plan, tracker, before_write))]

    return AgentTool(name="edit", description=DESCRIPTION, parameters=EditArgs, execute=execute, label="Edit")


def plan_edit(
    workspace: Workspace, tracker: ReadTracker, caps: OutputCaps, args: EditArgs, stop: threading.Event
) -> PlannedChange:
    path = workspace.resolve(args.path)
    shown = workspace.relative(path)
    data = existing_bytes(workspace, path, "edit")
    if data is None:
        raise ToolError(f"File not found: {shown}. Use write to create a new file.")
    tracker.require_current(path, data, shown, "edit")
    text = decode_for_edit(data, shown)
    if not args.old_text:
        raise ToolError("old_text is empty. To replace a whole file, use write.")
    if args.old_text == args.new_text:
        raise ToolError("old_text and new_text are identical; there is nothing to change.")
    utf8_of(args.new_text, shown, "edit", "new_text")  # before the work: the file's own text always encodes
    # A CRLF file is edited in LF form so the model's "\n" texts match; endings are restored after.
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    body, old, new = (_lf(text), _lf(args.old_text), _lf(args.new_text)) if crlf else (text, args.old_text, args.new_text)
    positions = occurrences(body, old) if args.replace_all else occurrences_up_to_two(body, old)
    count = len(positions) if args.replace_all or len(positions) < 2 else body.count(old)
    if count == 0:
        raise ToolError(
            f"old_text was not found in {shown}. It must match exactly, including whitespace and "
            "indentation; read the file again and copy the text."
        )
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_text appears {count} times in {shown}. Include more surrounding lines to make it "
            "unique, or set replace_all to true to replace every occurrence."
        )
    diff = edit_diff(body, old, new, positions, shown, caps.max_lines)
    changed = body.replace(old, new) if args.replace_all else body.replace(old, new, 1)
    del body, text  # the file is held as bytes (to detect a concurrent change) and as new content only
    content = (changed.replace("\n", "\r\n") if crlf else changed).encode("utf-8")
    del changed
    noun = "occurrence" if count == 1 else "occurrences"
    report = truncate_head(f"Replaced {count} {noun} in {shown}.\n{diff}", caps, "The edit was applied in full.")
    return PlannedChange(path=path, shown=shown, content=content, previous=data, report=report)


def occurrences_up_to_two(body: str, old: str) -> list[int]:
    # One replacement needs the unique place; a second one found is enough to refuse.
    first = body.find(old)
    if first < 0:
        return []
    second = body.find(old, first + len(old))
    return [first] if second < 0 else [first, second]


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")
