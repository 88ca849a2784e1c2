"""The ``write`` tool: create a file (and its folders) or replace one the agent has read."""

from __future__ import annotations

import threading

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.blocking import in_thread
from jupyter_agent.tools.file_change import BeforeWrite, PlannedChange, apply_change, existing_bytes, utf8_of
from jupyter_agent.tools.read_tracker import ReadTracker
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "Write a whole file: creates it (and missing folders) or replaces its content. Replacing an "
    "existing file requires reading it first. Prefer edit for small changes to existing files."
)


class WriteArgs(BaseModel):
    path: str = Field(description="File to write, relative to the workspace.")
    content: str = Field(description="The complete new content of the file.")


def write_tool(workspace: Workspace, tracker: ReadTracker, before_write: BeforeWrite | None) -> AgentTool:
    async def execute(args: WriteArgs, signal) -> list:
        plan = await in_thread(lambda stop: plan_write(workspace, tracker, args, stop))
        return [TextContent(text=await apply_change(workspace, plan, tracker, before_write))]

    return AgentTool(name="write", description=DESCRIPTION, parameters=WriteArgs, execute=execute, label="Write")


def plan_write(workspace: Workspace, tracker: ReadTracker, args: WriteArgs, stop: threading.Event) -> PlannedChange:
    path = workspace.resolve(args.path)
    shown = workspace.relative(path)
    previous = existing_bytes(workspace, path, "write")
    if previous is not None:
        tracker.require_current(path, previous, shown, "write")
    content = utf8_of(args.content, shown, "write", "content")
    what = "new file" if previous is None else "replaced the previous content"
    report = f"Wrote {len(content)} bytes to {shown} ({what})."
    return PlannedChange(path=path, shown=shown, content=content, previous=previous, report=report)
