"""``coding_tools``: read, list, grep, glob, edit, write and bash over one workspace folder."""

from __future__ import annotations

import os

from jupyter_agent.loop import AgentTool
from jupyter_agent.tools.bash import bash_tool
from jupyter_agent.tools.caps import DEFAULT_CAPS, OutputCaps
from jupyter_agent.tools.edit import edit_tool
from jupyter_agent.tools.file_change import BeforeWrite
from jupyter_agent.tools.glob import glob_tool
from jupyter_agent.tools.grep import grep_tool
from jupyter_agent.tools.list import list_tool
from jupyter_agent.tools.read import read_tool
from jupyter_agent.tools.read_tracker import ReadTracker
from jupyter_agent.tools.workspace import Workspace, as_workspace
from jupyter_agent.tools.write import write_tool


def coding_tools(
    workspace: Workspace | str | os.PathLike[str],
    *,
    # Long enough for a test suite or a build, short enough that a hung command is noticed.
    bash_timeout: float = 120.0,
    read_tracker: ReadTracker | None = None,
    caps: OutputCaps | None = None,
    before_write: BeforeWrite | None = None,
) -> list[AgentTool]:
    """The standard coding tools, confined to ``workspace`` (bash runs there but is not confined).

    ``read_tracker`` may be shared with other tool lists so reads count across them;
    ``before_write(path)`` is called on the event loop thread with the absolute path just before
    edit or write changes or creates a file.
    """
    if bash_timeout <= 0:
        raise ValueError("bash_timeout must be positive")
    root = as_workspace(workspace)
    tracker = read_tracker if read_tracker is not None else ReadTracker()
    caps = caps or DEFAULT_CAPS
    return [
        read_tool(root, tracker, caps),
        list_tool(root, caps),
        grep_tool(root, caps),
        glob_tool(root, caps),
        edit_tool(root, tracker, caps, before_write),
        write_tool(root, tracker, before_write),
        bash_tool(root, caps, bash_timeout),
    ]
