"""What a ``%%agent`` cell asks for: its settings and the request, both frozen when the cell runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook.model_resolution import ModelChoice, ResolvedModel
    from jupyter_agent.notebook.renderer import Renderer
    from jupyter_agent.notebook.runner import Turn
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.runtime.permissions import PermissionMode
    from jupyter_agent.tools.data_policy import DataPolicyName as DataPolicy


@dataclass(frozen=True)
class TurnSettings:
    permissions: PermissionMode = "ask"
    max_steps: int | None = None
    max_spend: float | None = None
    tools: tuple[str, ...] = ()
    api_key: str | None = None
    api_base: str | None = None
    data_policy: DataPolicy = "sample"
    sample_rows: int = 5
    bash_timeout: float = 120.0
    stream_timeout: float | None = None  # seconds of provider silence before a response fails
    memory: bool = False  # opt-in: durable facts beside the notebook (see features/turn_features.py)
    delegate: bool = False  # opt-in: the delegate tool and its sub-agents
    mcp: tuple[str, ...] | None = None  # MCP servers of the turn: None every configured one, () none
    mcp_servers: Any = None  # AgentMagics.mcp_servers
    mcp_subagents: bool = False  # sub-agents also get the read-only MCP tools
    undo_snapshot_mb: float = 100.0  # values changed in place are copied for undo under this size
    replay: str = "off"  # "on" | "strict" | "auto": play a recorded turn again (features/kernel_state/replay.py)


@dataclass(frozen=True)
class TurnRequest:
    """What a ``%%agent`` cell asked for: fixed when the cell runs, never changed by the run."""

    prompt: str
    session: AgentSession
    renderer: Renderer
    choice: ModelChoice
    settings: TurnSettings
    build_tools: Callable[[Callable[[], int]], list[AgentTool]]  # current_step -> tools
    build_system: Callable[[ResolvedModel, list[AgentTool]], str]  # the same every turn (a cacheable prefix)
    # The turn's context (the date, the cells around the agent cell), read when the turn starts;
    # it leads the prompt, after the cached prefix (``system_prompt.with_turn_context``).
    build_context: Callable[[], str] | None = None
    cell_id: str | None = None  # JupyterLab's id of the %%agent cell (for the lab extension)
    # Told when the turn starts running and when it ends: (turn) and (turn, status, steps).
    on_started: Callable[[Turn], None] | None = None
    on_finished: Callable[[Turn, str, int], None] | None = None
