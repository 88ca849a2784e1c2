"""One sub-agent of a ``delegate`` call: its budget, its run, its usage relayed to the parent.

Budget: the child's steps are at most the parent's remaining steps, its spend at most the
parent's remaining spend, shared with the children running beside it (``spend``).
Usage is charged to the parent as it happens (``AgentRun.add_external_usage``).

Events for a UI, each passed as ``on_child_event(child_id, event)``: ``child_queued`` when the
task is accepted, ``child_start`` when it gets a slot and runs, then every run event of the
child (``step_start``, ``text_delta``, ``tool_call``, …), ending with exactly one ``finish``
(a synthetic one, reason "refused" or "aborted", when the child never started).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

from jupyter_agent.loop import AbortSignal
from jupyter_agent.runtime import AgentRun, FinishEvent, RunEvent, RunUsage, run_agent

if TYPE_CHECKING:
    from jupyter_agent.features.delegation.tool import DelegationContext
    from jupyter_agent.runtime.limits import StepContext

_log = logging.getLogger(__name__)
REFUSED = "refused"  # the child never ran: no budget left


@dataclass(slots=True)
class ChildQueuedEvent:
    child_id: str
    task: str
    index: int  # position of the task in its delegate call, from 0
    type: Literal["child_queued"] = field(default="child_queued", init=False)


@dataclass(slots=True)
class ChildStartEvent:
    child_id: str
    max_steps: int
    max_spend_usd: float | None
    type: Literal["child_start"] = field(default="child_start", init=False)


# What a sub-agent tells its parent's UI: queued, started, then its own run's events.
ChildRunEvent = Union[ChildQueuedEvent, ChildStartEvent, RunEvent]


@dataclass
class ChildOutcome:
    child_id: str
    task: str
    reason: str  # a run's stop reason, or "refused"
    text: str
    steps: int = 0
    usage: RunUsage = field(default_factory=RunUsage)
    error: str | None = None
    out_of_spend: bool = False  # stopped because the parent's remaining spend ran out


def no_steps_left() -> str:
    return "No steps left for a sub-agent: this run is at its max_steps. Finish the task yourself."


def no_spend_left() -> str:
    return "No spend budget left for a sub-agent: this run's max_spend_usd is used up. Finish the task yourself."


def spend_taken() -> str:
    return (
        "Not started: what is left of this run's max_spend_usd is needed by the sub-agents already "
        "running. Delegate it again later or do it yourself."
    )


class ChildJob:
    def __init__(self, context: "DelegationContext", parent: AgentRun, task: str, index: int) -> None:
        self.context = context
        self.parent = parent
        self.task = task
        self.child_id = context.new_child_id()
        self.child: AgentRun | None = None
        self._charged = RunUsage()
        self._spend_at_step_start = 0.0
        self.awaiting_response = False  # a request is out whose cost is not charged yet
        self.last_step_cost: float | None = None
        self._out_of_spend = False
        context.notify(self.child_id, ChildQueuedEvent(child_id=self.child_id, task=task, index=index))

    async def run(self, signal: AbortSignal) -> ChildOutcome:
        outcome: ChildOutcome | None = None
        try:
            # A fourth child waits for a slot rather than failing: the model asked for the work,
            # and a refusal would only cost another round-trip to ask again.
            async with self.context.slots:
                signal.throw_if_aborted()
                outcome = await self._run_child(signal)
            return outcome
        finally:
            if self.child is None:
                reason = outcome.reason if outcome is not None else "aborted"
                text = outcome.text if outcome is not None else ""
                self.context.notify(self.child_id, FinishEvent(reason=reason, text=text, usage=RunUsage()))

    async def _run_child(self, signal: AbortSignal) -> ChildOutcome:
        context, pool = self.context, self.context.spend
        refusal = self._budget()
        if isinstance(refusal, str):
            return ChildOutcome(self.child_id, self.task, REFUSED, refusal)
        if not await pool.admit(self, self.parent.remaining_spend):
            return ChildOutcome(self.child_id, self.task, REFUSED, spend_taken(), out_of_spend=True)
        try:
            budget = self._budget()  # after waiting for the pool: what is left now
            if isinstance(budget, str):
                return ChildOutcome(self.child_id, self.task, REFUSED, budget)
            max_steps, max_spend = budget
            child = run_agent(
                context.model,
                self.task,
                system=context.system,
                tools=context.tools_for_child(),
                stream_fn=context.stream_fn,
                max_steps=max_steps,
                max_spend_usd=max_spend,
                rates=context.rates,
                should_stop=self._parent_cannot_pay,
                permissions=context.permissions,
                signal=signal,
                stream_options=context.stream_options,
            )
            self.child = child
            context.active[self.child_id] = self
            context.notify(self.child_id, ChildStartEvent(child_id=self.child_id, max_steps=max_steps, max_spend_usd=max_spend))
            child.add_listener(self._on_child_event)
            try:
                result = await child.result()
            except asyncio.CancelledError:
                child.interrupt()  # the parent's tool was cancelled: its child must not run on
                raise
            except Exception as failure:  # noqa: BLE001 - a failing child is a result for the parent
                return ChildOutcome(self.child_id, self.task, "error", "", error=str(failure) or type(failure).__name__)
        finally:
            context.active.pop(self.child_id, None)
            pool.leave(self)
        return ChildOutcome(
            self.child_id,
            self.task,
            result.reason,
            result.text,
            result.steps,
            result.usage.copy(),
            result.error,
            self._out_of_spend or result.reason == "max_spend",
        )

    def _budget(self) -> tuple[int, float | None] | str:
        """(max_steps, max_spend_usd) taken from what the parent has left, or why there is none."""
        steps = self.parent.remaining_steps()
        if steps is not None and steps < 1:
            return no_steps_left()
        spend = self.parent.remaining_spend()
        if spend is not None and spend <= 0:
            return no_spend_left()
        max_steps = self.context.max_child_steps if steps is None else min(steps, self.context.max_child_steps)
        caps = [cap for cap in (spend, self.context.max_child_spend_usd) if cap is not None]
        return max_steps, (min(caps) if caps else None)

    def _parent_cannot_pay(self, _context: StepContext) -> bool:
        """``should_stop`` of the child: the parent's spend left, less its siblings' requests still
        out, cannot pay another step like this child's last one."""
        if self.child is None:
            return False
        self.last_step_cost = self.child.usage.spend_usd - self._spend_at_step_start
        self._out_of_spend = not self.context.spend.allows(self.parent.remaining_spend(), self, self.last_step_cost)
        return self._out_of_spend

    def _on_child_event(self, event: RunEvent) -> None:
        assert self.child is not None, "a child's events arrive once its run exists"
        kind = event.type
        if kind == "step_start":
            self._spend_at_step_start = self.child.usage.spend_usd
            self.awaiting_response = True
        elif kind in ("message", "step_finish", "finish"):
            self._relay_usage()
            answered = event.type != "message" or event.message.role == "assistant"
            if answered and self.awaiting_response:
                self.awaiting_response = False
                self.context.spend.charged(self.child.usage.spend_usd - self._spend_at_step_start)
        self.context.notify(self.child_id, event)

    def _relay_usage(self) -> None:
        """Charges the parent with what the child spent since the last relay."""
        assert self.child is not None, "only a started child has spent anything"
        now = self.child.usage
        delta = now.since(self._charged)
        if delta == RunUsage():
            return
        self._charged = now
        if not self.parent.add_external_usage(delta):
            _log.debug("sub-agent %s spent after its parent settled", self.child_id)


__all__ = [
    "ChildJob",
    "ChildOutcome",
    "ChildQueuedEvent",
    "ChildRunEvent",
    "ChildStartEvent",
    "REFUSED",
    "no_spend_left",
    "no_steps_left",
]
