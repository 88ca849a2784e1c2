"""Running a turn on the kernel's event loop.

``start`` makes the turn an asyncio task on the running loop and returns at once, so the cell
replies in milliseconds and the notebook stays usable while the agent works. The task holds a
strong reference (asyncio keeps only weak ones), waits its session's FIFO lock so turns of one
session run in cell order ("waiting for the turn above"), routes the kernel's Interrupt to the
run while it is active, and catches every exception into the renderer: an unreferenced task's
error would land in no cell. ``run_in_foreground`` runs the same turn to completion for
``--wait``, headless execution and terminal IPython. The task plan, memory and delegation are
added to each turn by ``features.turn_features``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal

from jupyter_agent.messages import Message, with_turn_context
from jupyter_agent.notebook.interrupt import interrupt_router
from jupyter_agent.notebook.model_resolution import ResolvedModel, needs_litellm, resolve
from jupyter_agent.notebook.proxy_metadata import proxy_request_fields
from jupyter_agent.notebook.renderer import Renderer
from jupyter_agent.notebook.threads import call_on_loop, on_loop_thread
from jupyter_agent.notebook.turn_request import TurnRequest, TurnSettings
from jupyter_agent.runtime.events import (
    ApprovalRequestEvent,
    ApprovalResponseEvent,
    RunEvent,
    ToolCallEvent,
    ToolResultEvent,
)

if TYPE_CHECKING:
    from jupyter_agent.features.turn_features import TurnFeatures
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.runtime import AgentRun, RunResult

WAITING = "waiting for the turn above"
LOADING_LITELLM = "Loading litellm (its first use in a kernel takes a few seconds)…"
STOPPED_BEFORE_START = "stopped before it started"
STOP_AFTER_CODE = "Stop takes effect when the running Python code returns; the kernel's Interrupt (■) stops it now."
# How long an interrupt that hit non-tool code waits for a tool result before stopping the run.
INTERRUPT_GRACE = 1.0
# Errors the user can act on are shown as their message; anything else also names its type.
_PLAIN_ERRORS = ("SessionLockedError", "SessionNameError", "SessionWriteError", "UsageError", "UnknownModelError", "ReplayError")

_RUNS: set[asyncio.Task[None]] = set()  # strong references to every turn task


@dataclass(eq=False)  # identity semantics: a turn is a key of the interrupt router
class Turn:
    """A request and its live state: the one owner of its run, its task and its outcome."""

    request: TurnRequest
    foreground: bool = False  # runs to its end in the caller (terminal, --wait, headless)
    task: asyncio.Task[None] | None = None
    run: AgentRun | None = None
    resolved: ResolvedModel | None = None
    features: TurnFeatures | None = None  # plan, memory, delegation
    mcp: Any = None  # McpTurn: the MCP servers' tools and notes
    _mcp_opening: asyncio.Task[Any] | None = None
    prior_count: int = 0  # messages the session held before this turn
    stop_requested: bool = False
    error: BaseException | None = None
    result: RunResult | None = None

    loop: asyncio.AbstractEventLoop | None = None
    _stop_after_tool: bool = False
    _code_running: bool = False  # a python tool call is (about to be) executing on the loop's thread

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

    def _follow_tools(self, event: RunEvent) -> None:
        """Knows when agent-run Python occupies the loop; stops after an interrupted tool."""
        if isinstance(event, ToolCallEvent):
            self._code_running = event.name == "python"
        elif isinstance(event, ApprovalRequestEvent):
            self._code_running = False
        elif isinstance(event, ApprovalResponseEvent):
            self._code_running = event.request.tool_name == "python" and event.decision != "deny"
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

    def _interrupt(self) -> None:
        if self._mcp_opening is not None:
            self._mcp_opening.cancel()  # stop waiting for MCP servers; they go on starting for later turns
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
                    session.current = None
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


async def _run(turn: Turn) -> None:
    from jupyter_agent.features.turn_features import TurnFeatures
    from jupyter_agent.runtime import run_agent
    from jupyter_agent.runtime.compaction import summary_message

    session, renderer, settings = turn.session, turn.renderer, turn.settings
    _safely(renderer.set_state, "running")
    live_note = ""  # why a cell asking for a replay runs live
    if settings.replay != "off":
        from jupyter_agent.features.kernel_state.player import replay_if_recorded

        replayed, live_note = await replay_if_recorded(turn)
        if replayed:  # the recording, played again without a model
            return
    resolved = turn.resolved = await _resolve(turn)
    if live_note:
        _safely(renderer.note, live_note)  # after the note of litellm's loading is cleared
    _safely(renderer.set_model, resolved.label, resolved.model.context_window)
    if turn.stop_requested:
        _safely(renderer.set_state, "stopped", STOPPED_BEFORE_START)
        return
    session.current = turn  # approvals go to this turn's renderer from now on
    store = session.store
    # The runtime's framing of a compaction summary, so a resumed session shows the model the same.
    # A record that cannot be written (a full disk) ends the turn with that error, never silently.
    recorder = store.recorder(
        snapshots=session.snapshots,
        summary_message=summary_message,
        on_failure=lambda error: turn.run.fail(error) if turn.run is not None else None,
    )
    tools = turn.request.build_tools(lambda: recorder.current_step or 0)
    features = turn.features = TurnFeatures.build(session, settings, renderer, resolved, tools)
    tools = [*tools, *features.tools]
    mcp = turn.mcp = await _open_mcp(turn)
    if mcp is None:
        _safely(renderer.set_state, "stopped", STOPPED_BEFORE_START)
        return
    if settings.mcp_subagents and features.delegation is not None:
        features.delegation.tools = [*features.delegation.tools, *mcp.read_only_tools()]
    base_names = [tool.name for tool in tools]
    tools = [*tools, *mcp.tools]
    system = turn.request.build_system(resolved, tools)
    if mcp.system_section():
        system = f"{system}\n\n{mcp.system_section()}"
    policy = session.policy_for(settings.permissions)
    store.record_request(
        resolved.model,
        {"max_steps": settings.max_steps, "max_spend_usd": settings.max_spend, "permissions": settings.permissions},
    )
    prior = store.messages()
    turn.prior_count = len(prior)
    prompt = turn.request.prompt
    if turn.request.build_context is not None:
        prompt = with_turn_context(prompt, turn.request.build_context())
    run = run_agent(
        model=resolved.model,
        prompt=prompt,
        system=system,
        tools=tools,
        messages=prior,
        stream_fn=resolved.stream_fn,
        max_steps=settings.max_steps,
        max_spend_usd=settings.max_spend,
        permissions=policy,
        prepare_step=mcp.step_hook(base_names, features.prepare_step()),
    )
    features.attach(run)
    turn.run = run
    run.add_listener(recorder.record)
    run.add_listener(renderer.handle)
    run.add_listener(turn._follow_tools)
    if turn.stop_requested:
        run.interrupt()
    turn.result = await run.result()
    if recorder.failure is not None and turn.result.reason != "error":
        turn.error = recorder.failure  # the turn's last write (its final fsync) failed after the run settled
        raise recorder.failure
    if not turn.stop_requested:
        await features.after_turn(turn.result, turn.prior_count, resolved, store)
        mcp.show()  # the MCP notes stay visible after other notes came and went


async def _open_mcp(turn: Turn) -> Any:
    """The turn's MCP servers (started if needed, with progress in the panel); None if stopped meanwhile."""
    from jupyter_agent.features.mcp import McpTurn, open_turn

    settings = turn.settings
    if settings.mcp == () or tuple(settings.tools) == ("none",):
        return McpTurn()
    opening = turn._mcp_opening = asyncio.ensure_future(
        open_turn(
            turn.session,
            configured=settings.mcp_servers,
            selection=settings.mcp,
            mode=settings.permissions,
            ask=turn.session.ask,
            note=lambda text: _safely(turn.renderer.note, text),
        )
    )
    try:
        return await opening
    except asyncio.CancelledError:
        if turn.stop_requested and opening.cancelled():
            return None
        raise
    finally:
        turn._mcp_opening = None


async def _resolve(turn: Turn) -> ResolvedModel:
    """Resolves the model in a worker thread: the first litellm model waits for its import."""
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
        return await asyncio.to_thread(
            resolve,
            choice,
            api_key=settings.api_key,
            api_base=settings.api_base,
            idle_timeout=settings.stream_timeout,
            request_fields=proxy_request_fields(choice.name, session.name, session.notebook),
        )
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
    from jupyter_agent.model.secrets import redact_secrets

    name = type(error).__name__
    if name in _PLAIN_ERRORS or not str(error):
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
