"""Running a turn on the kernel's event loop.

``start`` makes the turn an asyncio task on the running loop and returns at once, so the cell
replies in milliseconds and the notebook stays usable while the agent works. The task holds a
strong reference (asyncio keeps only weak ones), waits its session's FIFO lock so turns of one
session run in cell order ("waiting for the turn above"), routes the kernel's Interrupt to the
run while it is active, and catches every exception into the renderer: an unreferenced task's
error would land in no cell. ``run_in_foreground`` runs the same turn to completion for
``--wait``, headless execution and terminal IPython.

What a turn has beyond its tools comes from the feature registry (``features.registry``), in one
loop (``features.turn_features.TurnFeatures``); the runner names no feature. The renderer hears
one feed: the run's events and what the features show (``FeatureEvent``), in order.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Literal

from jupyter_agent.features.feature import FeatureEvent, KernelShell, ResolvedModel, RunPlan, TurnContext
from jupyter_agent.features.settings import TurnSettings
from jupyter_agent.messages import Message, with_turn_context
from jupyter_agent.notebook.agent_cells import place_cell_turn, start_cell_turn
from jupyter_agent.notebook.interrupt import interrupt_router
from jupyter_agent.notebook.model_resolution import needs_litellm, resolve
from jupyter_agent.notebook.proxy_metadata import proxy_request_fields
from jupyter_agent.notebook.renderer import Renderer, TurnEvent
from jupyter_agent.notebook.threads import call_on_loop, on_loop_thread
from jupyter_agent.notebook.toolset import turn_privacy_gate
from jupyter_agent.notebook.trust_key import user_trust_key
from jupyter_agent.runtime.events import (
    ApprovalRequestEvent,
    ApprovalResponseEvent,
    RunEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from jupyter_agent.runtime.feed import EventFeed

if TYPE_CHECKING:
    from jupyter_agent.features.frontend import NotebookFrontend
    from jupyter_agent.features.turn_features import TurnFeatures
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook.agent_cells import CellTurn
    from jupyter_agent.notebook.model_resolution import ModelChoice
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.notebook.toolset import RunControlFields
    from jupyter_agent.runtime import AgentRun, RunResult

WAITING = "waiting for the turn above"
LOADING_LITELLM = "Loading litellm (its first use in a kernel takes a few seconds)…"
STOPPED_BEFORE_START = "stopped before it started"
STOP_AFTER_CODE = "Stop takes effect when the running Python code returns; the kernel's Interrupt (■) stops it now."
# How long an interrupt that hit non-tool code waits for a tool result before stopping the run.
INTERRUPT_GRACE = 1.0
# The tool whose calls run the user's Python on the loop's thread (Stop then waits for the code).
CODE_TOOL = "python"

_RUNS: set[asyncio.Task[None]] = set()  # strong references to every turn task


@dataclass(frozen=True)
class TurnRequest:
    """What a ``%%agent`` cell asked for: fixed when the cell runs, never changed by the run."""

    prompt: str
    session: AgentSession
    renderer: Renderer
    choice: ModelChoice
    settings: TurnSettings
    build_tools: Callable[[Callable[[], int]], list[AgentTool]]  # current_step -> the toolset's tools
    build_system: Callable[[ResolvedModel, list[AgentTool]], str]  # the same every turn (a cacheable prefix)
    # The turn's context (the date, the cells around the agent cell), read when the turn starts;
    # it leads the prompt, after the cached prefix (``messages.with_turn_context``).
    build_context: Callable[[], str] | None = None
    cell_id: str | None = None  # JupyterLab's id of the %%agent cell (for the lab extension)
    # The cell the turn comes from (None: no cell, e.g. the side panel): a re-run redoes its turn.
    cell: CellTurn | None = None
    # Told when the turn starts running and when it ends: (turn) and (turn, status, steps).
    on_started: Callable[[Turn], None] | None = None
    on_finished: Callable[[Turn, str, int], None] | None = None
    shell: KernelShell | None = None  # the kernel's shell (the features' namespace); None: no kernel
    frontend: NotebookFrontend | None = None  # the live notebook document (the lab extension's comm)
    cell_waits: bool = False  # the cell blocks until the turn ends: the kernel runs no other cell meanwhile
    run_control: RunControlFields | None = None  # notebook_run's guards (``toolset.run_control``): cell clock, limit, stale cells


@dataclass(eq=False)  # identity semantics: a turn is a key of the interrupt router
class Turn:
    """A request and its live state: the one owner of its run, its task and its outcome."""

    request: TurnRequest
    foreground: bool = False  # runs to its end in the caller (terminal, --wait, headless)
    task: asyncio.Task[None] | None = None
    run: AgentRun | None = None
    resolved: ResolvedModel | None = None
    features: TurnFeatures | None = None
    prior_count: int = 0  # messages the session held before this turn
    step: int = 0  # the run's step in progress (0 before the first)
    stop_requested: bool = False
    error: BaseException | None = None
    result: RunResult | None = None
    # What the renderer hears: the run's events and the features' (before, during and after the run).
    feed: EventFeed[TurnEvent] = field(default_factory=EventFeed)

    loop: asyncio.AbstractEventLoop | None = None
    _starting: asyncio.Future[None] | None = None  # the features' start, cancelled by Stop
    _stop_after_tool: bool = False
    _code_running: bool = False  # a python tool call is (about to be) executing on the loop's thread
    _model: asyncio.Future[ResolvedModel] | None = None

    @property
    def session(self) -> AgentSession:
        return self.request.session

    @property
    def renderer(self) -> Renderer:
        return self.request.renderer

    @property
    def settings(self) -> TurnSettings:
        return self.request.settings

    # The hooks below are called by widget callbacks. JupyterLab sends comm messages to a kernel
    # subshell, so they may run on another thread: anything touching the run goes to its loop.

    def stop(self) -> None:
        """Stop button, ``%agent stop`` and Interrupt: abort the run, or drop a queued turn."""
        self.stop_requested = True
        if self._code_running and not on_loop_thread(self.loop):
            # A click on a subshell thread while agent-run Python blocks the loop.
            if interrupt_router().interrupt_code(self):
                return  # interrupted as by ■: the run stops once the code's result is recorded
            _safely(self.renderer.note, STOP_AFTER_CODE)
        call_on_loop(self.loop, self._interrupt)

    def code_running(self) -> bool:
        return self._code_running

    def interrupted_in_code(self) -> None:
        """Interrupt landed in the run's own code (a running ``python`` tool): that tool's
        "interrupted" result is recorded first, then the run stops (see ``_follow_tools``)."""
        self.stop_requested = True
        self._stop_after_tool = True
        if self.loop is not None:
            # In case the interrupted code was not a tool: stop anyway, a moment later.
            self.loop.call_later(INTERRUPT_GRACE, self._interrupt)

    def emit(self, event: FeatureEvent) -> None:
        """What a feature shows, into the turn's feed (the renderer hears it in order)."""
        self.feed.emit(event)

    def _follow_tools(self, event: RunEvent) -> None:
        """Knows the run's step, and when agent-run Python occupies the loop; stops after an interrupted tool."""
        if isinstance(event, StepStartEvent):
            self.step = event.step
        elif isinstance(event, ToolCallEvent):
            self._code_running = event.name == CODE_TOOL
        elif isinstance(event, ApprovalRequestEvent):
            self._code_running = False
        elif isinstance(event, ApprovalResponseEvent):
            self._code_running = event.request.tool_name == CODE_TOOL and event.decision != "deny"
        elif isinstance(event, ToolResultEvent):
            self._code_running = False
            if self._stop_after_tool:
                self._interrupt()

    def steer(self, text: str) -> bool:
        """Steer button, ``%agent steer`` and the lab extension: delivered at the next step."""
        return self._deliver(text, "steer")

    def follow_up(self, text: str) -> bool:
        """Follow-up button and ``%agent follow-up``: delivered when the agent would finish."""
        return self._deliver(text, "follow_up")

    def new_messages(self) -> list[Message]:
        """The messages this turn added (empty until it has a result)."""
        return list(self.result.messages[self.prior_count :]) if self.result is not None else []

    @property
    def running(self) -> bool:
        """Its run exists and has not ended (what ``%agent steer`` can reach)."""
        return self.run is not None and not self.run.done

    def _interrupt(self) -> None:
        if self._starting is not None:
            self._starting.cancel()  # stop waiting for the features (MCP servers go on starting for later turns)
        if self.run is not None:
            self.run.interrupt()
        if self.features is not None:
            self.features.stop()

    def _deliver(self, text: str, kind: Literal["steer", "follow_up"]) -> bool:
        run = self.run
        if run is None or run.done or not text.strip():
            return False
        push = run.steer if kind == "steer" else run.follow_up
        if self.loop is None or on_loop_thread(self.loop):
            return bool(push(text))
        call_on_loop(self.loop, push, text)
        return True  # checked above; the run may still end first, like any race with the answer

    async def model(self) -> ResolvedModel:
        """The turn's model, resolved once (in a worker thread: the first litellm model waits for its import)."""
        if self._model is None:
            self._model = asyncio.ensure_future(_resolve(self))
        return await asyncio.shield(self._model)


def start(turn: Turn) -> asyncio.Task[None]:
    """Starts ``turn`` as a background task on the running loop."""
    loop = asyncio.get_running_loop()
    turn.loop = loop
    context = interrupt_router().bind(turn)
    task = loop.create_task(execute(turn), context=context)
    turn.task = task
    _RUNS.add(task)
    task.add_done_callback(_RUNS.discard)
    turn.session.add_turn(turn)
    _wire_controls(turn)
    return task


async def run_in_foreground(turn: Turn) -> None:
    """Runs ``turn`` to its end; Interrupt/Ctrl-C stops the agent, not the caller."""
    turn.foreground = True
    task = start(turn)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        # The cell itself was cancelled (e.g. by the kernel's async-cell interrupt): stop the
        # run and let it settle so every tool call is paired before the cell ends.
        turn.stop()
        await asyncio.wait({task}, timeout=5)
        raise


async def wait_idle(session: AgentSession) -> None:
    """``%agent wait``: until every queued and running turn of the session has ended.

    Shielded: interrupting the waiting cell must not cancel the agent's turns.
    """
    while True:
        pending = session.pending_tasks()
        if not pending:
            return
        await asyncio.shield(asyncio.wait(pending))


def _wire_controls(turn: Turn) -> None:
    renderer = turn.renderer
    renderer.on_stop = turn.stop
    renderer.on_steer = turn.steer
    renderer.on_follow_up = turn.follow_up
    turn.feed.add_listener(renderer.handle)


async def execute(turn: Turn) -> None:
    session, renderer = turn.session, turn.renderer
    router = interrupt_router()
    try:
        with router.guard(
            turn, turn.stop, in_code=turn.interrupted_in_code, code_running=turn.code_running, foreground=turn.foreground
        ):
            if session.lock.locked():
                _safely(renderer.set_state, "waiting", WAITING)
            async with session.lock:
                if turn.stop_requested:
                    _safely(renderer.set_state, "stopped", STOPPED_BEFORE_START)
                    return
                on_started, on_finished = turn.request.on_started, turn.request.on_finished
                if on_started is not None:
                    _safely(on_started, turn)
                try:
                    await _run(turn)
                finally:
                    if on_finished is not None:
                        _safely(on_finished, turn, *_outcome(turn))
    except asyncio.CancelledError:
        _safely(renderer.show_error, "The turn was cancelled.")
        _safely(renderer.set_state, "stopped")
        raise
    except Exception as error:  # noqa: BLE001 - every failure must be visible in the panel
        turn.error = error
        _safely(renderer.show_error, describe_error(error))
        _safely(renderer.set_state, "error")
    finally:
        # The live view becomes what a saved notebook keeps (the panel: static outputs, widgets closed).
        _safely(renderer.finish)
        turn.feed.close()


async def _run(turn: Turn) -> None:
    from jupyter_agent.features.registry import FEATURES
    from jupyter_agent.features.turn_features import TurnFeatures
    from jupyter_agent.runtime import PermissionPolicy, run_agent
    from jupyter_agent.runtime.compaction import summary_message

    session, renderer, settings, request = turn.session, turn.renderer, turn.settings, turn.request
    _safely(renderer.set_state, "running")
    store = session.store
    base_tools = request.build_tools(lambda: turn.step)
    features = turn.features = TurnFeatures.open(FEATURES, _context(turn), base_tools)
    prompt = request.prompt
    if request.build_context is not None:
        prompt = with_turn_context(prompt, request.build_context())
    plan = features.amend(RunPlan(prompt=prompt, max_steps=settings.max_steps, max_spend=settings.max_spend))
    resolved = plan.model
    if resolved is None:
        resolved = turn.resolved = await turn.model()
    _safely(renderer.set_model, resolved.label, resolved.model.context_window if resolved.gauge else None)
    if turn.stop_requested:
        _safely(renderer.set_state, "stopped", STOPPED_BEFORE_START)
        return
    # A cell run again branches the session before its earlier turn; before the features start,
    # so that they read the branch the turn continues (its plan). A replay records nothing: no place.
    placement = await place_cell_turn(turn) if plan.record else None
    if not await _started(turn, features):
        _safely(renderer.set_state, "stopped", STOPPED_BEFORE_START)
        return
    tools = features.run_tools()
    system = features.system(request.build_system(resolved, tools)) if plan.system_prompt else None
    recorder = None
    if plan.record:
        # The runtime's framing of a compaction summary, so a resumed session shows the model the same.
        # A record that cannot be written (a full disk) ends the turn with that error, never silently.
        recorder = store.recorder(
            snapshots=session.snapshots,
            summary_message=summary_message,
            on_failure=lambda error: turn.run.fail(error) if turn.run is not None else None,
            trust=user_trust_key(store.redactor),  # signs the calls that ran, which a replay may trust
        )
        options = {"max_steps": settings.max_steps, "max_spend_usd": settings.max_spend, "permissions": settings.permissions}
        await start_cell_turn(turn, placement, options, system or "", tools, plan.lead)
    elif plan.lead:
        _safely(renderer.note, plan.lead)
    messages = store.messages() if plan.messages is None else plan.messages
    turn.prior_count = len(messages)
    # Each run gets its own frozen policy: its mode, this turn's renderer asking, the session's
    # reviewer (the lab extension's inline review of a notebook edit) beside it, the session's trust.
    policy = PermissionPolicy(settings.permissions, prompt=renderer.ask, reviewer=session.reviewer, trust=session.trust)
    if plan.gate is not None:
        policy = plan.gate(policy)
    run = run_agent(
        model=resolved.model,
        prompt=plan.prompt,
        system=system,
        tools=tools,
        messages=messages,
        stream_fn=resolved.stream_fn,
        max_steps=plan.max_steps,
        max_spend_usd=plan.max_spend,
        permissions=policy,
        prepare_step=features.prepare_step(),
        compaction=plan.compaction or "model",
    )
    features.attach(run)
    turn.run = run
    if recorder is not None:
        run.add_listener(recorder.record)
    run.add_listener(turn.feed.emit)
    run.add_listener(turn._follow_tools)
    if turn.stop_requested:
        run.interrupt()
    turn.result = await run.result()
    if recorder is not None and recorder.failure is not None and turn.result.reason != "error":
        turn.error = recorder.failure  # the turn's last write (its final fsync) failed after the run settled
        raise recorder.failure
    if not turn.stop_requested:
        await features.after(turn.result, turn.new_messages())


def _context(turn: Turn) -> TurnContext:
    request = turn.request
    return TurnContext(
        session=turn.session,
        settings=turn.settings,
        prompt=request.prompt,
        emit=turn.emit,
        note=lambda text: _safely(turn.renderer.note, text),
        ask=turn.renderer.ask,
        model=turn.model,
        current_step=lambda: turn.step,
        shell=request.shell,
        frontend=request.frontend,
        cell_waits=request.cell_waits,
        trust_key=user_trust_key(),
        cell=request.cell.ref if request.cell is not None else None,  # a replay finds the cell's own turn first
        run_control=request.run_control,
    )


async def _started(turn: Turn, features: TurnFeatures) -> bool:
    """The features' start (servers, consent), with progress in the panel; False if stopped meanwhile."""
    starting = turn._starting = asyncio.ensure_future(features.start())
    try:
        await starting
        return True
    except asyncio.CancelledError:
        if turn.stop_requested and starting.cancelled():
            return False
        raise
    finally:
        turn._starting = None


async def _resolve(turn: Turn) -> ResolvedModel:
    settings = turn.settings
    waiting = False
    choice = turn.request.choice
    if needs_litellm(choice):
        from jupyter_agent.model.litellm_loader import is_litellm_loaded

        waiting = not is_litellm_loaded()
        if waiting:
            _safely(turn.renderer.note, LOADING_LITELLM)
    try:
        session = turn.request.session
        resolving = functools.partial(
            resolve,
            choice,
            api_key=settings.api_key or None,  # empty: the provider's own variable
            api_base=settings.api_base or None,
            idle_timeout=settings.stream_timeout,
            request_fields=proxy_request_fields(choice.name, session.name, session.notebook),
        )
        # Resolving takes microseconds once litellm is imported; a thread's hop would take a millisecond.
        resolved = await asyncio.to_thread(resolving) if waiting else resolving()
        # Every request of the turn passes the privacy gate: its steps, sub-agents, compaction, memory.
        return resolved.behind(turn_privacy_gate(settings))
    finally:
        if waiting:
            _safely(turn.renderer.note, "")


def _outcome(turn: Turn) -> tuple[str, int]:
    """The turn's stop reason and steps, also when it ended without a result."""
    if turn.error is not None:
        return "error", turn.result.steps if turn.result is not None else 0
    if turn.result is not None:
        return turn.result.reason, turn.result.steps
    return ("aborted" if turn.stop_requested else "error"), 0


def describe_error(error: BaseException) -> str:
    """Errors the user can act on (``UserFacingError``, IPython's ``UsageError``) are shown as their
    message; anything else also names its type."""
    from IPython.core.error import UsageError

    from jupyter_agent.errors import UserFacingError
    from jupyter_agent.model.secrets import redact_secrets

    name = type(error).__name__
    if isinstance(error, (UserFacingError, UsageError)) or not str(error):
        return redact_secrets(str(error)) or name
    return redact_secrets(f"{name}: {error}")


def _safely(method: Callable[..., object], *args: object) -> None:
    # A renderer failure must never hide the run's own outcome (or its error).
    try:
        method(*args)
    except Exception:  # noqa: BLE001
        pass


def turns_of(session: AgentSession) -> list[Turn]:
    """The session's turns that are queued or running."""
    return [turn for turn in session.turns if turn.task is not None and not turn.task.done()]


def running_turn(session: AgentSession) -> Turn | None:
    """The session's turn whose run is going on (it holds the session's lock), if any."""
    return next((turn for turn in turns_of(session) if turn.running), None)
