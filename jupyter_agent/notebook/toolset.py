"""The tools a notebook turn gets: kernel tools on the user's namespace, coding tools on the workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    from pathlib import Path

    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.tools.data_policy import DataPolicyName

KERNEL_TOOLS = ("python", "variables", "inspect")
NOTEBOOK_TOOLS = ("notebook_read", "notebook_edit", "notebook_run")
CODING_TOOLS = ("read", "list", "grep", "glob", "edit", "write", "bash")
ALL_TOOLS = KERNEL_TOOLS + NOTEBOOK_TOOLS + CODING_TOOLS


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
    shell: InteractiveShell,
    session: AgentSession,
    *,
    selected: Sequence[str] = (),
    data_policy: DataPolicyName = "sample",
    sample_rows: int = 5,
    bash_timeout: float = 120.0,
    current_step: Callable[[], int] = lambda: 0,
    cell_waits: bool = False,
    live_renderer: Callable[[], Any] | None = None,
    snapshot_limit_mb: float = 100.0,  # AgentMagics.undo_snapshot_mb
) -> list[AgentTool]:
    """Kernel, notebook and coding tools, in that order, restricted to ``selected`` when given.

    ``live_renderer``: where python's output shows while it runs (default: the running turn's panel)."""
    if tuple(selected) == ("none",):
        return []
    from jupyter_agent.features.notebook_tools import notebook_tools
    from jupyter_agent.tools import coding_tools, kernel_tools

    wanted = set(selected or ALL_TOOLS)
    tools: list[AgentTool] = []
    if wanted & set(KERNEL_TOOLS):
        from jupyter_agent.notebook.live_code import LiveCode

        # The turn's panel (the session's renderer while it runs) shows the code's output live.
        live = LiveCode(live_renderer or (lambda: session.current.renderer if session.current is not None else None))
        from jupyter_agent.features.kernel_state import session_watch

        # Each python call's namespace changes: on its card, in the session, undone by %agent undo.
        watch = session_watch(shell, session, current_step, snapshot_limit_mb)
        tools += kernel_tools(shell, data_policy=data_policy, sample_rows=sample_rows, live=live, watch=watch)
    if wanted & set(NOTEBOOK_TOOLS):
        tools += notebook_tools(notebook_context(shell, session, current_step, cell_waits=cell_waits))
    if wanted & set(CODING_TOOLS):
        snapshots = session.snapshots

        def before_write(path: Path) -> None:
            # Undo keeps each file's content from before the step's first change.
            if snapshots is not None:
                snapshots.capture(current_step(), path)

        tools += coding_tools(
            session.workspace, bash_timeout=bash_timeout, read_tracker=session.read_tracker, before_write=before_write
        )
    return [tool for tool in tools if tool.name in wanted]


def notebook_context(shell: Any, session: Any, current_step: Callable[[], int] = lambda: 0, *, cell_waits: bool = False) -> Any:
    """The notebook tools' context for ``session``: its read state lives as long as the session."""
    from jupyter_agent.features.notebook_tools import NotebookContext, NotebookEditLog, NotebookReadState
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend

    state = _READ_STATES.setdefault(str(session.path), NotebookReadState())
    return NotebookContext(
        frontend=CommNotebookFrontend(shell),
        notebook_path=lambda: session.notebook,
        user_ns=getattr(shell, "user_ns", None) or {},
        edit_log=NotebookEditLog.for_session(session.path),
        current_step=current_step,
        state=state,
        cell_waits=cell_waits,
    )


_READ_STATES: dict[str, Any] = {}  # session file -> what its agent read of the notebook
