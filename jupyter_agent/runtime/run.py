"""``run_agent`` and ``AgentRun``: start a run as a task on the running loop, steer it, await it.

run = run_agent(model, "Plot the sales by region", tools=kernel_tools(...))
run.add_listener(render)          # or: async for event in run.events
run.steer("use a bar chart")      # delivered at the next step boundary
result = await run.result()
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Sequence

from jupyter_agent.loop import AbortController, AbortSignal, AgentTool
from jupyter_agent.loop.validate_input import validate_user_content
from jupyter_agent.messages import Message, UserContent
from jupyter_agent.model import Model, StreamFn, StreamOptions
from jupyter_agent.runtime.compaction import CompactionMode
from jupyter_agent.runtime.events import FinishEvent, RunEvent
from jupyter_agent.runtime.feed import EventFeed
from jupyter_agent.runtime.host import RunHost
from jupyter_agent.runtime.limits import Hook
from jupyter_agent.runtime.options import DEFAULT_KEEP_RECENT, DEFAULT_MAX_OUTPUT_TOKENS, RunOptions
from jupyter_agent.runtime.permissions import PermissionPolicy
from jupyter_agent.runtime.queues import InputQueues, Pending
from jupyter_agent.runtime.result import RunResult
from jupyter_agent.runtime.spend import Rates, RunUsage

NO_RUNNING_LOOP = "run_agent must be called with an asyncio event loop running"

# asyncio keeps only weak references to tasks: a run nobody holds must still finish.
_RUNNING: set[asyncio.Task[None]] = set()


class AgentRun:
    def __init__(
        self,
        host: RunHost,
        feed: EventFeed[RunEvent],
        queues: InputQueues,
        controller: AbortController,
        unlink: Callable[[], None],
    ) -> None:
        self._host = host
        self._feed = feed
        self._queues = queues
        self._controller = controller
        self._unlink = unlink
        self._settled = asyncio.Event()
        self._result: RunResult | None = None
        self._failure: BaseException | None = None
        self._done = False
        feed.on_fatal = self.fail  # a listener the run cannot go on without (the session recorder) failed
        task = asyncio.get_running_loop().create_task(self._drive())
        _RUNNING.add(task)
        task.add_done_callback(_RUNNING.discard)
        task.add_done_callback(self._cancelled_before_start)

    @property
    def model(self) -> Model:
        return self._host.options.model

    @property
    def events(self) -> AsyncIterator[RunEvent]:
        """A fresh iterator over every event from the start; ends after ``finish``."""
        return self._feed.__aiter__()

    @property
    def done(self) -> bool:
        return self._done

    @property
    def usage(self) -> RunUsage:
        """The cumulative usage so far (a copy), live while the run works."""
        return self._host.ledger.usage.copy()

    def remaining_spend(self) -> float | None:
        """USD left under ``max_spend_usd`` (never negative); ``None`` when there is no ceiling."""
        return self._host.remaining_spend()

    def remaining_steps(self) -> int | None:
        """Steps left in the current window, the step in progress counted; ``None``: no ``max_steps``."""
        return self._host.remaining_steps()

    def add_external_usage(self, usage: RunUsage) -> bool:
        """Charges work done for this run elsewhere (a sub-agent's requests) to its spend and usage.

        It counts toward ``max_spend_usd`` and shows in the current ``step_finish`` and in the
        result. ``False`` when the run had already settled: its result can no longer change.
        """
        if not isinstance(usage, RunUsage):
            raise TypeError(f"add_external_usage takes a RunUsage, not {type(usage).__name__}")
        if self._done:
            return False
        self._host.ledger.charge_external(usage)
        return True

    async def result(self) -> RunResult:
        await self._settled.wait()
        if self._failure is not None:
            raise self._failure
        assert self._result is not None, "a run settles with a result or a failure"
        return self._result

    def steer(self, text: str) -> bool:
        return self._queues.push(text, "steer")

    def follow_up(self, text: str) -> bool:
        return self._queues.push(text, "follow_up")

    def interrupt(self) -> None:
        if not self._done:
            self._controller.abort()

    def fail(self, error: BaseException) -> None:
        """Ends the run with ``error`` (reason "error"), stopping its work like ``interrupt``.

        For failures the run must not outlive, e.g. its transcript can no longer be saved.
        """
        if not self._done:
            self._host.fail(error)

    def pending(self) -> Pending:
        return self._queues.pending()

    def add_listener(self, listener: Callable[[RunEvent], Any]) -> None:
        self._feed.add_listener(listener)

    def _cancelled_before_start(self, task: asyncio.Task[None]) -> None:
        # A task cancelled before its first step (a kernel shutting down) never ran _drive's
        # cleanup; waiters of result() and readers of events must not hang.
        if not self._settled.is_set():
            self._failure = asyncio.CancelledError("Run task was cancelled before it started")
            self._done = True
            self._queues.closed = True
            self._unlink()
            self._feed.close()
            self._settled.set()

    async def _drive(self) -> None:
        cancelled: BaseException | None = None
        try:
            result, raised = await self._host.run()
            if isinstance(raised, asyncio.CancelledError):
                cancelled = raised
            else:
                self._failure = raised
            self._result = result
            self._done = True
            self._feed.emit(FinishEvent(reason=result.reason, text=result.text, usage=result.usage.copy()))
        except Exception as bug:  # noqa: BLE001 - a runtime defect must still settle the run
            self._failure = bug
            self._done = True
        finally:
            self._done = True
            self._queues.closed = True
            self._unlink()
            self._feed.close()
            self._settled.set()
        if cancelled is not None:
            raise cancelled


def run_agent(
    model: Model | str,
    prompt: UserContent,
    system: str | None = None,
    tools: Sequence[AgentTool] = (),
    messages: Sequence[Message] | None = None,
    stream_fn: StreamFn | None = None,
    max_steps: int | None = None,  # opt-in hard cap: no default ceiling
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    max_context_tokens: int | None = None,  # default: the model's window
    max_spend_usd: float | None = None,
    rates: Rates | None = None,
    compact_at_tokens: int | None = None,  # default: 80 % of the window
    compaction: CompactionMode = "model",
    compact_keep_recent: int = DEFAULT_KEEP_RECENT,
    prepare_step: Hook | None = None,
    should_stop: Hook | None = None,
    should_continue: Hook | None = None,
    permissions: PermissionPolicy | None = None,  # None allows every tool (the SDK default)
    signal: AbortSignal | None = None,
    stream_options: StreamOptions | None = None,
) -> AgentRun:
    """Starts a run as a task on the running event loop and returns its handle at once.

    The options are declared (types, defaults, messages) by ``RunOptions``, then the prompt is
    checked for the model; a mistake raises ``ValueError`` here, before any task starts.
    """
    arguments = dict(locals())  # exactly the parameters above: RunOptions checks each option
    del arguments["prompt"]  # the run's input, checked once the options name the model
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(NO_RUNNING_LOOP) from None
    options = RunOptions.validated(arguments)
    # Images only where the model accepts them; the loop contract's messages.
    content = validate_user_content(prompt, options.model.accepts_images, options.model.id)
    feed: EventFeed[RunEvent] = EventFeed()
    queues = InputQueues(feed.emit)
    controller = AbortController()
    unlink = _link(signal, controller)
    host = RunHost(options, content, feed, queues, controller)
    return AgentRun(host, feed, queues, controller, unlink)


def _link(signal: AbortSignal | None, controller: AbortController) -> Callable[[], None]:
    """Aborting the caller's signal aborts the run; returns how to undo the link."""
    if signal is None:
        return lambda: None

    def forward(reason: BaseException) -> None:
        controller.abort(reason)

    signal.add_listener(forward)
    return lambda: signal.remove_listener(forward)
