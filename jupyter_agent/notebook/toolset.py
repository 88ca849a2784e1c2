"""The tools a notebook turn gets: kernel tools on the user's namespace, coding tools on the workspace."""

from __future__ import annotations

from typing import Any, Callable, Sequence

KERNEL_TOOLS = ("python", "variables", "inspect")
CODING_TOOLS = ("read", "list", "grep", "glob", "edit", "write", "bash")
ALL_TOOLS = KERNEL_TOOLS + CODING_TOOLS


class UnknownToolError(ValueError):
    pass


def parse_tool_list(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"python,read"`` → ("python", "read"); empty means every tool; "none" means no tools."""
    if not text:
        return ()
    items = text.split(",") if isinstance(text, str) else list(text)
    names = tuple(name.strip() for name in items if name.strip())
    if names == ("none",):
        return ("none",)
    unknown = [name for name in names if name not in ALL_TOOLS]
    if unknown:
        raise UnknownToolError(f"unknown tool(s): {', '.join(unknown)}. Tools: {', '.join(ALL_TOOLS)}, or none")
    return names


def build_tools(
    shell: Any,
    session: Any,
    *,
    selected: Sequence[str] = (),
    data_policy: str = "sample",
    sample_rows: int = 5,
    bash_timeout: float = 120.0,
    current_step: Callable[[], int] = lambda: 0,
) -> list:
    """Kernel and coding tools, in that order, restricted to ``selected`` when given."""
    if tuple(selected) == ("none",):
        return []
    from jupyter_agent.tools import coding_tools, kernel_tools

    wanted = set(selected or ALL_TOOLS)
    tools = []
    if wanted & set(KERNEL_TOOLS):
        tools += kernel_tools(shell, data_policy=data_policy, sample_rows=sample_rows)
    if wanted & set(CODING_TOOLS):
        snapshots = session.snapshots

        def before_write(path) -> None:
            # Undo keeps each file's content from before the step's first change.
            if snapshots is not None:
                snapshots.capture(current_step(), path)

        tools += coding_tools(
            session.workspace, bash_timeout=bash_timeout, read_tracker=session.read_tracker, before_write=before_write
        )
    return [tool for tool in tools if tool.name in wanted]
