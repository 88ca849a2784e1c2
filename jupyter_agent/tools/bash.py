"""The ``bash`` tool: run a command in the workspace; exit code and both streams, capped."""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, Field

from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.caps import HeadTailBuffer, OutputCaps, truncate_head_tail
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.process import CommandResult, run_command
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "Run a shell command (bash -c) in the workspace folder. stdin is closed, so interactive "
    "commands get end-of-file. Returns stdout, stderr and the exit code; long output keeps its "
    "head and tail. A command that outlives its timeout is killed with all its child processes. "
    "Background jobs (cmd &) end when the command ends, as in a terminal that closes; to keep a "
    "server running for later commands, start it with nohup cmd > cmd.log 2>&1 & (or setsid)."
)


NUL = "\0"


class BashArgs(BaseModel):
    command: str = Field(description="The command line to run.")
    timeout: float | None = Field(default=None, gt=0, description="Seconds before the command is killed.")


def bash_tool(workspace: Workspace, caps: OutputCaps, default_timeout: float) -> AgentTool:
    async def execute(args: BashArgs, signal: AbortSignal) -> list:
        timeout = args.timeout or default_timeout
        if NUL in args.command:
            # An argument of exec cannot hold a NUL: the shell would never start.
            raise ToolError(
                f"The command holds a NUL character at position {args.command.index(NUL) + 1}; a command line "
                "cannot contain one (nothing was run). To produce a NUL byte, use printf '\\0'."
            )
        result = await run_command(
            args.command, cwd=str(workspace.root), timeout=timeout, signal=signal, capture_bytes=caps.capture_bytes
        )
        text = format_result(result, caps)
        if result.timed_out:
            raise ToolError(f"Command timed out after {timeout:g} s and was killed with its child processes.\n{text}")
        if result.aborted:
            raise ToolError(f"Command aborted: the run was stopped, the command was killed with its child processes.\n{text}")
        return [TextContent(text=text)]

    return AgentTool(name="bash", description=DESCRIPTION, parameters=BashArgs, execute=execute, label="Bash")


def format_result(result: CommandResult, caps: OutputCaps) -> str:
    # The two streams share the budget, so each gets half of it.
    half = replace(caps, max_lines=max(caps.max_lines // 2, 1), max_bytes=max(caps.max_bytes // 2, 1))
    parts = []
    for name, buffer in (("stdout", result.stdout), ("stderr", result.stderr)):
        if buffer.total:
            parts.append(f"{name}:\n{_capped(buffer, half)}")
    if result.exit_code is not None and result.exit_code < 0:
        parts.append(f"exit code {result.exit_code} (killed by signal {-result.exit_code})")
    elif result.exit_code is not None:
        parts.append(f"exit code {result.exit_code}")
    if not result.stdout.total and not result.stderr.total:
        parts.insert(0, "(no output)")
    return "\n".join(parts)


def _capped(buffer: HeadTailBuffer[bytes], caps: OutputCaps) -> str:
    text = buffer.value().decode("utf-8", errors="replace").rstrip("\n")
    return truncate_head_tail(text, caps, omitted_before=buffer.omitted)
