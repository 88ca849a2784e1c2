"""When a run may take another step: the step window, the spend rail and the caller's hooks.

Order at a boundary where the run would go on: ``should_stop`` (the caller's rule wins), then
``max_steps``, then ``max_spend``. ``should_continue`` is asked only at a natural finish with
nothing queued; the extra step it asks for still passes through the same checks.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Union

from jupyter_agent.loop import AbortSignal, abortable
from jupyter_agent.messages import Message, copy_message

STOPPED_BY_CALLER = "stopped_by_caller"
MAX_STEPS = "max_steps"
MAX_SPEND = "max_spend"


@dataclass
class StepInfo:
    step: int
    tool_names: list[str]  # the step's tool calls in order (repeats kept)


@dataclass
class StepContext:
    """What hooks see. ``step_number``: the step about to run (``prepare_step``) or the step just
    completed (``should_stop``, ``should_continue``). ``messages`` and ``steps`` are copies."""

    step_number: int
    messages: list[Message]
    steps: list[StepInfo]


class LiveStepContext(StepContext):
    """``StepContext`` whose transcript copy is made when a hook first reads ``messages``.

    Most hooks never read it (the notebook's ``prepare_step`` does not); copying the whole
    transcript for every hook call made each step cost as much as the session was long.
    """

    def __init__(self, step_number: int, live: list[Message], steps: list[StepInfo]) -> None:
        self.step_number = step_number
        self.steps = steps
        self._live = live
        self._copy: list[Message] | None = None

    @property
    def messages(self) -> list[Message]:
        if self._copy is None:
            self._copy = [copy_message(message) for message in self._live]
        return self._copy

    @messages.setter
    def messages(self, value: list[Message]) -> None:
        self._copy = value


Hook = Callable[[StepContext], Union[Any, Awaitable[Any]]]


class HookRunner:
    """Calls caller hooks, sync or async, and remembers the failure ``result()`` must raise."""

    def __init__(self, signal: AbortSignal) -> None:
        self.signal = signal
        self.failure: BaseException | None = None

    async def call(self, hook: Callable[..., Any], *args: Any) -> Any:
        self.signal.throw_if_aborted()
        try:
            outcome = hook(*args)
            if inspect.isawaitable(outcome):
                if self.signal.aborted and inspect.iscoroutine(outcome):
                    outcome.close()  # the hook itself interrupted the run: never awaited
                # An interrupt must not wait for a slow hook.
                outcome = await abortable(outcome, self.signal)
            return outcome
        except Exception as error:
            if not (self.signal.aborted and error is self.signal.reason):
                self.failure = error
            raise

    def caller_error(self, error: BaseException) -> BaseException:
        """Records a caller mistake the runtime found (e.g. a hook's bad return value)."""
        self.failure = error
        return error


class StepWindow:
    """``max_steps`` as a moving limit: delivered input grants a fresh window."""

    def __init__(self, max_steps: int | None) -> None:
        self.max_steps = max_steps
        self.limit = max_steps

    def reached(self, completed_steps: int) -> bool:
        return self.limit is not None and completed_steps >= self.limit

    def refresh(self, completed_steps: int) -> None:
        if self.max_steps is not None:
            self.limit = completed_steps + self.max_steps


class Limits:
    def __init__(
        self,
        hooks: HookRunner,
        max_steps: int | None,
        max_spend_usd: float | None,
        should_stop: Hook | None,
        should_continue: Hook | None,
    ) -> None:
        self.hooks = hooks
        self.window = StepWindow(max_steps)
        self.max_spend_usd = max_spend_usd
        self.should_stop = should_stop
        self.should_continue = should_continue

    async def stop_reason(
        self, context: Callable[[], StepContext], completed_steps: int, spent: float, next_step_cost: float
    ) -> str | None:
        """Why the run must not take another step, or ``None``."""
        if self.should_stop is not None and await self.hooks.call(self.should_stop, context()):
            return STOPPED_BY_CALLER
        if self.window.reached(completed_steps):
            return MAX_STEPS
        if self.cannot_afford(spent, next_step_cost):
            return MAX_SPEND
        return None

    def cannot_afford(self, spent: float, next_step_cost: float) -> bool:
        # The next step is projected to cost what the last one did.
        return self.max_spend_usd is not None and spent + next_step_cost > self.max_spend_usd

    async def continuation(self, context: Callable[[], StepContext]) -> bool | str:
        """``should_continue``'s answer: ``False``, ``True`` (same transcript) or text to append."""
        if self.should_continue is None:
            return False
        answer = await self.hooks.call(self.should_continue, context())
        if isinstance(answer, str):
            # Blank text asks for nothing: an empty user message would be refused by the loop.
            return answer.strip() or False
        return bool(answer)
