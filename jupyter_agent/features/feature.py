"""The feature contract: a capability of a turn is one ``Feature``, listed once in ``registry.py``.

A feature (the task plan, memory, delegation, the MCP client, kernel state, the notebook tools,
the MCP server…) is a package under ``features/``. Its ``Feature`` says, once per kernel, what it
is; for every turn whose settings enable it, ``open`` returns its ``FeatureTurn``: the state it
keeps for that turn and what it adds to the run. The runner loops over the registry and knows no
feature by name::

    class Feature(ABC):
        name: ClassVar[str]                          # "plan", "memory", … unique
        def enabled(self, settings) -> bool: ...     # for this turn?
        def open(self, context) -> FeatureTurn: ...  # this turn's state

    class FeatureTurn:                               # every part optional
        tools: list[AgentTool]                       # offered to the model
        def wrap(self, tool) -> AgentTool            # around any tool's calls
        def system_section(self) -> str              # fixed for the run (cached prefix)
        def step_section(self) -> str                # read afresh for every step
        def amend(self, plan) -> RunPlan             # change the run (a replay)
        async def start(self) -> None                # before the run (servers, consent)
        def attach(self, run) -> None                # the run exists
        async def before_step(self) -> bool          # True: my tools changed
        async def after(self, result, added) -> None # the run ended (not stopped)
        def stop(self) -> None                       # Stop pressed: give up what you wait for

What a feature shows goes out as ``FeatureEvent``s through ``TurnContext.emit``, into the turn's
event feed, never through a method of its own on a renderer: each renderer hands the events it
does not know to the views registered for their type (the feature's ``view`` module, loaded by
the notebook layer, ``notebook/views.py``), which also declares the feature's ``%agent``
subcommands.

Adding a feature touches its own folder and one line of ``registry.FEATURES``.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar, Mapping, Protocol, Sequence

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import Message
from jupyter_agent.model import Model, StreamFn

if TYPE_CHECKING:
    from jupyter_agent.features.frontend import NotebookFrontend
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.runtime import AgentRun, RunResult
    from jupyter_agent.runtime.compaction import CompactionMode
    from jupyter_agent.runtime.permissions import PermissionPolicy, Prompt
    from jupyter_agent.runtime.privacy import PrivacyGate
    from jupyter_agent.session import SessionStore, SnapshotStore
    from jupyter_agent.session.records import CellRef
    from jupyter_agent.session.trust import TrustKey
    from jupyter_agent.tools.read_tracker import ReadTracker


@dataclass(frozen=True)
class ResolvedModel:
    """The turn's model, resolved: what the run streams from, and the name the footer shows."""

    model: Model
    stream_fn: StreamFn | None  # None: the runtime's default (litellm)
    label: str
    is_demo: bool = False
    gauge: bool = True  # False: the footer shows no context gauge (a replay's window is no model's)

    def behind(self, gate: PrivacyGate) -> ResolvedModel:
        """This model with every request passing ``gate``: the turn's steps, its sub-agents,
        compaction and memory extraction all use this ``stream_fn``."""
        from jupyter_agent.runtime.options import default_stream_fn

        return dataclasses.replace(self, stream_fn=gate.stream(self.stream_fn or default_stream_fn()))


class TurnSession(Protocol):
    """What a feature may use of the turn's session (``notebook.session_manager.AgentSession``)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...  # the session's .jsonl file; a feature's files go beside it
    @property
    def notebook(self) -> Path | None: ...
    @property
    def workspace(self) -> Path: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def snapshots(self) -> SnapshotStore: ...
    @property
    def read_tracker(self) -> ReadTracker: ...


class KernelShell(Protocol):
    """What a feature may use of the kernel's IPython shell (``IPython.InteractiveShell``): its
    namespace. Anything else (``events``, ``transform_cell``) is read with ``getattr``, as optional."""

    @property
    def user_ns(self) -> dict[str, object]: ...


class FeatureEvent:
    """Something a feature shows: put into the turn's event feed beside the run's events.

    A subclass is a dataclass that fixes ``type`` with
    ``type: Literal["plan_changed"] = field(default="plan_changed", init=False)`` and holds frozen
    or freshly made values: renderers may keep them.
    """

    type: str


@dataclass(frozen=True)
class TurnContext:
    """What a feature's ``open`` gets: the turn it joins, and the ways back to the user.

    ``emit``, ``note`` and ``ask`` reach the turn's renderer; ``emit`` and ``note`` never raise (a
    display failure must not end the run). ``model`` resolves the turn's model once and returns
    the same value to every caller (a replay never asks for it).
    """

    session: TurnSession
    settings: TurnSettings
    prompt: str  # what the user asked, without the turn's context
    emit: Callable[[FeatureEvent], None]
    note: Callable[[str], None]  # a one-line note; "" clears it
    ask: Prompt | None  # the turn's approval prompt (None: nobody can answer; deny)
    model: Callable[[], Awaitable[ResolvedModel]]
    current_step: Callable[[], int]  # the run's step (0 before it starts): undo entries are per step
    shell: KernelShell | None = None  # the IPython shell whose namespace the kernel tools use (None outside a kernel)
    frontend: NotebookFrontend | None = None  # the live notebook document, over the lab extension's comm
    cell_waits: bool = False  # the cell blocks the kernel until the turn ends (no other cell can run)
    trust_key: TrustKey | None = None  # this user's key: which recorded calls they allowed (session/trust.py)
    cell: CellRef | None = None  # the agent cell the turn comes from (None: no cell, e.g. the side panel)
    # notebook_run's guards, made by the notebook layer: the fields of the notebook tools'
    # ``RunControl`` (the kernel's cell clock, its ■ at a cell's time limit, the session's stale cells).
    run_control: Mapping[str, Any] | None = None
    # The tools of the turn when the feature opens: the toolset's, then those offered by the features
    # opened before this one.
    tools: Sequence[AgentTool] = ()
    # Every tool of the turn by who offers it ("" the toolset, else a feature's name), as it is now:
    # read it in ``amend``, ``start`` or later (an MCP client's tools exist once its servers run).
    turn_tools: Callable[[], Mapping[str, Sequence[AgentTool]]] = lambda: {}

    def with_tools(self, tools: Sequence[AgentTool]) -> TurnContext:
        return dataclasses.replace(self, tools=tuple(tools))


@dataclass
class RunPlan:
    """What the runner is about to run; a feature's ``amend`` may change it (a replay does).

    The tools are not part of it: a feature offers its own (``tools``) and changes any tool's
    calls (``wrap``); the whole list is ``TurnContext.turn_tools()``.
    """

    prompt: str
    max_steps: int | None
    max_spend: float | None
    messages: list[Message] | None = None  # None: the session's, read once the turn has its place
    model: ResolvedModel | None = None  # None: the turn's own model, resolved before the features start
    system_prompt: bool = True  # False: the run has no system prompt (a replay)
    # The run's permission policy made from the turn's (mode, prompt, the session's trust); None keeps it.
    gate: Callable[[PermissionPolicy], PermissionPolicy] | None = None
    compaction: CompactionMode | None = None  # None: the runtime's default
    record: bool = True  # False: nothing of the run is written to the session file
    lead: str = ""  # a note said before the first request (why a replay asked for runs live)


class FeatureTurn:
    """A feature's state for one turn and what it adds to the run; every part is optional.

    The runner calls, in this order: ``amend`` (before the model is resolved), ``start`` (awaited;
    Stop cancels it), ``tools``/``wrap``/``system_section`` (building the run), ``attach``, then
    per step ``before_step`` and ``step_section``, and ``after`` once the run ended without being
    stopped. ``stop`` may come at any time on the loop's thread. None of them may block the loop.
    """

    # Tools offered to the model this turn (gated by the permission policy like every tool).
    tools: list[AgentTool]
    # True: this turn is this feature's alone (a replay); the features after it are not opened.
    alone: bool = False

    def __init__(self, tools: Sequence[AgentTool] = ()) -> None:
        self.tools = list(tools)

    def wrap(self, tool: AgentTool) -> AgentTool:
        """Every tool of the turn passes here (the offered ones included): return it, or one
        that does something around its calls (the kernel state watches each python call)."""
        return tool

    def system_section(self) -> str:
        """Appended to the system prompt for the whole run; "" for nothing. Keep it stable:
        the system prompt is the start of the prefix a provider caches."""
        return ""

    def step_section(self) -> str:
        """Part of every request's step context, read afresh for each step; "" for nothing."""
        return ""

    def amend(self, plan: RunPlan) -> RunPlan:
        """The run the turn will make; return it changed to make another one (a replay)."""
        return plan

    async def start(self) -> None:
        """Awaited before the run starts (an MCP client starts its servers here)."""

    def attach(self, run: AgentRun) -> None:
        """The run exists (its events have not started): keep it if you need it."""

    async def before_step(self) -> bool:
        """Before every step's request; True when ``tools`` changed (they are sent from then on)."""
        return False

    async def after(self, result: RunResult, added: Sequence[Message]) -> None:
        """The run ended and was not stopped (memory extraction); ``added``: the messages this
        turn added to the session. May raise a user-facing error."""

    def stop(self) -> None:
        """Stop, or the kernel's Interrupt: abandon whatever this turn still waits for."""


class Feature(ABC):
    """A capability of turns: declared once, opened for each turn that enables it."""

    name: ClassVar[str]
    # The feature's notebook-layer module (panel, static and terminal views, %agent subcommands),
    # loaded by the notebook layer; "" when the feature shows nothing of its own.
    view: ClassVar[str] = ""
    # Tool names a user can pick with --tools (the feature then offers only the picked ones).
    selectable_tools: ClassVar[tuple[str, ...]] = ()
    # Opened for %agent serve too (its tools and wraps apply to an external agent's calls).
    serves: ClassVar[bool] = False

    @abstractmethod
    def enabled(self, settings: TurnSettings) -> bool:
        """Whether a turn with these settings gets this feature."""

    @abstractmethod
    def open(self, context: TurnContext) -> FeatureTurn:
        """This turn's state. Cheap and synchronous: slow work goes in ``FeatureTurn.start``."""


def selected(settings: TurnSettings, names: Sequence[str]) -> list[str]:
    """Which of ``names`` the turn's ``--tools`` picks (all of them when it picks none)."""
    chosen = tuple(settings.tools)
    if chosen == ("none",):
        return []
    return [name for name in names if not chosen or name in chosen]


__all__ = ["Feature", "FeatureEvent", "FeatureTurn", "ResolvedModel", "RunPlan", "TurnContext", "TurnSession", "selected"]
