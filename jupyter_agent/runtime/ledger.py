"""The run's ledger: which step is open, what each step and the whole run have cost.

A step opens when its request is prepared and closes when the loop reports its round trip (or
the run settles); ``step_start`` and ``step_finish`` are emitted here, the latter with the run's
cumulative usage and the step's own. Every charge lands in both: the model's responses, a
compaction summary, and work done for the run elsewhere (a sub-agent's requests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jupyter_agent.messages import Usage
from jupyter_agent.model import Model
from jupyter_agent.runtime.events import RunEvent, StepFinishEvent, StepStartEvent
from jupyter_agent.runtime.limits import StepInfo
from jupyter_agent.runtime.spend import Rates, RunUsage, request_cost, request_input_tokens


class StepLedger:
    def __init__(self, rates: Rates | None, model: Model, emit: Callable[[RunEvent], None]) -> None:
        self.rates = rates
        self.emit = emit
        self.usage = RunUsage()  # the run's, cumulative
        self.step = 0  # the number of the latest step opened
        self.steps: list[StepInfo] = []  # the steps whose round trip completed
        self.model = model  # the open step's model (prepare_step may choose another)
        self.step_cost = 0.0  # the open step's model requests: the next step's projection
        self._open = False
        self._step_usage = RunUsage()
        self._request_estimate = 0

    def open(self, model: Model, request_estimate: int) -> int:
        """Starts the next step; ``request_estimate`` stands in for an unreported input size."""
        self.step += 1
        self._open = True
        self._step_usage = RunUsage()
        self.step_cost = 0.0
        self.model = model
        self._request_estimate = request_estimate
        self.emit(StepStartEvent(step=self.step))
        return self.step

    def completed(self, tool_names: Sequence[str]) -> None:
        """The open step's round trip is done; ``tool_names`` are the calls it made."""
        self.steps.append(StepInfo(step=self.step, tool_names=list(tool_names)))

    def charge_response(self, usage: Usage) -> int:
        """A model response of the open step; returns the input size the provider reported (0: none)."""
        cost = request_cost(usage, self.rates, self.model)
        self.usage.charge(usage, cost)
        self._step_usage.charge(usage, cost)
        self.step_cost += cost
        reported = request_input_tokens(usage)
        # Without a reported size, the estimate made when the request was sent stands in.
        self.usage.last_request_input_tokens = reported or self._request_estimate
        self._step_usage.last_request_input_tokens = self.usage.last_request_input_tokens
        return reported

    def charge_side_request(self, usage: Usage, model: Model) -> None:
        """A request made for the run that is not a step (a compaction summary)."""
        cost = request_cost(usage, self.rates, model)
        self.usage.charge(usage, cost)
        self._step_usage.charge(usage, cost)

    def charge_external(self, usage: RunUsage) -> None:
        """Work done for this run outside its own requests (a sub-agent): spend and totals."""
        self.usage.add(usage)
        if self._open:
            self._step_usage.add(usage)

    def close(self) -> None:
        """Ends the open step, if any, with its ``step_finish``."""
        if not self._open:
            return
        self._open = False
        self.emit(
            StepFinishEvent(step=self.step, usage=self.usage.copy(), step_usage=self._step_usage.copy(), model=self.model.id)
        )

    def remaining_spend(self, ceiling: float | None) -> float | None:
        return None if ceiling is None else max(0.0, ceiling - self.usage.spend_usd)


__all__ = ["StepLedger"]
