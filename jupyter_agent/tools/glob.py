"""The ``glob`` tool: files (and folders, marked ``/``) whose path matches a pattern."""

from __future__ import annotations

import stat
import threading

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.blocking import in_thread
from jupyter_agent.tools.caps import OutputCaps, truncate_head
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.glob_pattern import compile_glob, split_literal_prefix
from jupyter_agent.tools.walk import walk
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "Find files by path pattern: `*` (within a folder), `**` (any depth), `?`, `[abc]`, `{a,b}`. "
    "E.g. `**/*.py`, `src/**/test_*.{py,ipynb}`. Paths are relative to the workspace; hidden and "
    "cache folders are skipped unless the pattern names them."
)


class GlobArgs(BaseModel):
    pattern: str = Field(description="Glob pattern, relative to path.")
    path: str = Field(default=".", description="Folder to search from, relative to the workspace.")


def glob_tool(workspace: Workspace, caps: OutputCaps) -> AgentTool:
    async def execute(args: GlobArgs, signal) -> list:
        text = await in_thread(lambda stop: find_paths(workspace, caps, args.pattern, args.path, stop))
        return [TextContent(text=text)]

    return AgentTool(name="glob", description=DESCRIPTION, parameters=GlobArgs, execute=execute, label="Glob", read_only=True)


def find_paths(workspace: Workspace, caps: OutputCaps, pattern: str, path: str, stop: threading.Event) -> str:
    if not pattern.strip():
        raise ToolError("The glob pattern is empty. Example: **/*.py")
    if pattern.startswith("/"):
        raise ToolError(f"Pattern {pattern!r} is absolute. Give it relative to path (e.g. path='src', pattern='**/*.py').")
    prefix, rest = split_literal_prefix(pattern.strip())
    start = workspace.resolve("/".join([path, *prefix]))
    start_status = workspace.found(start, workspace.relative(start), "search")
    if start_status is None or not stat.S_ISDIR(start_status.st_mode):
        what = "is a file, not a folder" if start_status is not None else "was not found"
        raise ToolError(f"{workspace.relative(start)} {what}; glob searches from a folder.")
    matcher = compile_glob(rest)
    # Without "**" the pattern fixes the depth, so deeper folders need not be walked.
    max_depth = None if "**" in rest else rest.count("/") + 1
    found: list[str] = []
    more = False
    for entry in walk(str(start), workspace, stop=stop, max_depth=max_depth):
        if matcher.match(entry.relative):
            if len(found) >= caps.glob_max_results:
                more = True
                break
            found.append(workspace.relative(entry.path) + ("/" if entry.is_dir else ""))
    if not found:
        return f"No files match {pattern!r} in {workspace.relative(start)}."
    text = "\n".join(found)
    if more:
        text += f"\n[More than {caps.glob_max_results} matches; showing the first. Narrow the pattern.]"
    return truncate_head(text, caps, "Narrow the pattern.")
