"""The toolset of a notebook turn: kernel tools on the user's namespace, coding tools on the workspace.

What a feature adds (the notebook tools, the plan, MCP…) comes from the feature registry, not from
here; ``--tools`` picks among both (``ALL_TOOLS``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence, TypedDict

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.features.registry import FEATURES, selectable_tools

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from pathlib import Path

    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.features.feature import Feature, FeatureEvent, ResolvedModel
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook.interrupt import TimeLimitState
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.runtime.permissions import Prompt
    from jupyter_agent.runtime.privacy import PrivacyGate
    from jupyter_agent.tools.data_policy import DataPolicy, DataPolicyName

KERNEL_TOOLS = ("python", "variables", "inspect")
CODING_TOOLS = ("read", "list", "grep", "glob", "edit", "write", "bash")
# Every tool --tools can pick: the toolset's, then the features' (the notebook tools), in the
# order the help has always listed them.
ALL_TOOLS = KERNEL_TOOLS + selectable_tools() + CODING_TOOLS
# Tools whose results hold the kernel's values (the data policy binds them; the file tools show files).
VALUE_TOOLS = KERNEL_TOOLS + selectable_tools()


def data_policy(mode: DataPolicyName = "sample", sample_rows: int = 5, ceiling: DataPolicyName | None = None) -> DataPolicy:
    """The turn's (or ``%agent serve``'s) data policy, with the site's ceiling when one is in force."""
    from jupyter_agent.tools.data_policy import DataPolicy

    return DataPolicy(mode, sample_rows, ceiling=ceiling)


def privacy_gate(policy: DataPolicy) -> PrivacyGate:
    """The gate between the turn and its model (and between ``%agent serve`` and its clients)."""
    from jupyter_agent.runtime.privacy import PrivacyGate

    return PrivacyGate(policy.mode, policy.sample_rows, value_tools=VALUE_TOOLS)


def turn_privacy_gate(settings: TurnSettings) -> PrivacyGate:
    """The gate of a turn with these ``TurnSettings``: every request of the turn passes it."""
    return privacy_gate(data_policy(settings.data_policy, settings.sample_rows, settings.data_ceiling))


class UnknownToolError(ValueError, JupyterAgentError):
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
    shell: InteractiveShell | None,  # None: no kernel (the kernel tools fail when called)
    session: AgentSession,
    *,
    selected: Sequence[str] = (),
    policy: DataPolicy | None = None,  # default: "sample", 5 rows
    bash_timeout: float = 120.0,
    python_timeout: float | None = None,  # AgentMagics.python_timeout (notebook_run's cells too); None: no limit
    current_step: Callable[[], int] = lambda: 0,
    live_renderer: Callable[[], object] | None = None,
) -> list[AgentTool]:
    """Kernel and coding tools, in that order, restricted to ``selected`` when given.

    ``live_renderer``: where python's output shows while it runs (the turn's panel; None: nowhere
    until the result)."""
    if tuple(selected) == ("none",):
        return []
    from jupyter_agent.tools import coding_tools, kernel_tools

    wanted = set(selected or ALL_TOOLS)
    policy = policy or data_policy()
    tools: list[AgentTool] = []
    if wanted & set(KERNEL_TOOLS):
        from jupyter_agent.notebook.live_code import LiveCode

        live = LiveCode(live_renderer) if live_renderer is not None else None
        from jupyter_agent.notebook.interrupt import interrupt_router

        # At its limit a python call is interrupted as the kernel's ■ would, and the turn goes on.
        limit = interrupt_router(shell).time_limit
        tools += kernel_tools(
            shell,
            policy=policy,
            live=live,
            time_limit=limit,
            python_timeout=python_timeout,
            before_blocking=live.before_blocking if live is not None else None,
        )
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


def with_feature_tools(
    tools: Sequence[AgentTool],
    shell: InteractiveShell,
    session: AgentSession,
    settings: TurnSettings,
    *,
    features: Sequence[Feature] = FEATURES,
    current_step: Callable[[], int] = lambda: 0,
    emit: Callable[[FeatureEvent], None] = lambda event: None,
    note: Callable[[str], None] = lambda text: None,
    ask: Prompt | None = None,
    run_control: RunControlFields | None = None,
) -> list[AgentTool]:
    """``tools`` and what the enabled ``features`` offer when they open, each wrapped by them, outside
    a turn (``%agent serve``, ``%agent preview``): nothing is started, so a feature whose tools come
    from its ``start`` (MCP servers, the delegate tool) offers none here."""
    from jupyter_agent.features.feature import TurnContext
    from jupyter_agent.features.turn_features import TurnFeatures
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend

    async def no_model() -> ResolvedModel:
        raise RuntimeError("outside a turn there is no model to resolve")

    context = TurnContext(
        session=session,
        settings=settings,
        prompt="",
        emit=emit,
        note=note,
        ask=ask,
        model=no_model,
        current_step=current_step,
        shell=shell,
        frontend=CommNotebookFrontend(shell),
        run_control=run_control,
    )
    return TurnFeatures.open(features, context, tools).tools()


class RunControlFields(TypedDict):
    """The fields of the notebook tools' ``RunControl`` (``features/notebook_tools/running.py``),
    which the notebook layer fills and the feature makes into one."""

    cell_seconds: Callable[[str], float | None]
    ask_slow_cells: float | None
    timeout: float | None
    limit: Callable[[str, float], AbstractContextManager[TimeLimitState]]
    stale: list[object]  # the feature's StaleCell entries: kept here, across the session's turns
    transform: Callable[[str], str] | None


def run_control(
    shell: InteractiveShell, session: AgentSession, timeout: float | None, ask_slow_cells: float | None
) -> RunControlFields:
    """notebook_run's guards: the kernel's cell clock and its ■ for a cell at its limit; the session's
    stale cells. The notebook tools' ``RunControl`` fields (the feature makes it; the notebook layer
    reaches features through the registry only)."""
    from jupyter_agent.notebook.cell_clock import cell_clock
    from jupyter_agent.notebook.interrupt import interrupt_router

    clock, router = cell_clock(shell), interrupt_router(shell)

    def limit(cell_id: str, seconds: float) -> AbstractContextManager[TimeLimitState]:
        return router.cell_time_limit(seconds, lambda: clock.running == cell_id)

    transformer = getattr(getattr(shell, "input_transformer_manager", None), "transform_cell", None)
    return RunControlFields(
        cell_seconds=clock.seconds,
        ask_slow_cells=ask_slow_cells,
        timeout=timeout,
        limit=limit,
        stale=_STALE_CELLS.setdefault(str(session.path), []),
        transform=transformer,
    )


_STALE_CELLS: dict[str, list[object]] = {}  # session file -> the cells its python calls made stale, in order
