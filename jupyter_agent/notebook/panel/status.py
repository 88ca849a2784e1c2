"""What the status line says — state, step, model, tokens, context fill, cost, elapsed —
without widgets, so the terminal and static renderers share it with the panel's footer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from jupyter_agent.notebook.panel import formatting as fmt

if TYPE_CHECKING:
    from jupyter_agent.runtime.spend import RunUsage

STATES = {
    "waiting": ("◌", "waiting"),
    "running": ("●", "running"),
    "done": ("✓", "done"),
    "stopped": ("■", "stopped"),
    "error": ("✗", "error"),
}
TERMINAL = frozenset({"done", "stopped", "error"})
_FINISH_STATES = {"completed": "done", "aborted": "stopped", "stopped_by_caller": "stopped", "error": "error"}
_LIMIT_REASONS = {
    "max_steps": "step limit reached",
    "max_spend": "spend limit reached",
    "max_output": "answer hit the output token limit",
    "max_context": "context window full",
}


def finish_state(reason: str) -> tuple[str, str]:
    """(state, detail) shown for a run's stop reason."""
    return _FINISH_STATES.get(reason, "done"), _LIMIT_REASONS.get(reason, "")


class RunStatus:
    """What the status line says, without widgets (the text renderers use it too)."""

    def __init__(
        self,
        *,
        model_label: str,
        session: str,
        context_window: int | None,
        demo: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model_label = model_label
        self.session = session
        self.context_window = context_window
        self.demo = demo
        self.state = "running"
        self.detail = ""
        self.step = 0
        self.step_budget: int | None = None
        self.usage: RunUsage | None = None  # the run's, from its last step_finish or finish event
        self._clock = clock
        self._started = clock()
        self._ended: float | None = None

    def start(self, step_budget: int | None = None) -> None:
        self._started = self._clock()
        self._ended = None
        self.step_budget = step_budget

    def set_state(self, state: str, detail: str = "") -> None:
        self.state = state if state in STATES else "running"
        self.detail = detail
        if self.state in TERMINAL:
            self._ended = self._ended or self._clock()
        else:
            self._ended = None

    def state_text(self) -> str:
        word = STATES[self.state][1]
        if self.state == "waiting" and not self.detail:
            word = "waiting for the turn above"
        if not self.detail:
            return word
        # A detail that already names the state ("stopped before it started") stands alone.
        return self.detail if self.detail.lower().startswith(word) else f"{word} — {self.detail}"

    def step_text(self) -> str:
        budget = f"/{self.step_budget}" if self.step_budget else ""
        return f"step {self.step}{budget}" if self.step else ""

    def usage_items(self) -> list[str]:
        """Token, context-fill and cost figures."""
        usage = self.usage
        if usage is None:  # no step has finished
            return [f"{fmt.tokens(0)} in / {fmt.tokens(0)} out", f"cost {fmt.cost(0)}"]
        input_tokens, output_tokens, cached = usage.input_tokens, usage.output_tokens, usage.cache_read_tokens
        tokens = f"{fmt.tokens(input_tokens)} in / {fmt.tokens(output_tokens)} out"
        items = [tokens + (f" ({fmt.tokens(cached)} cached)" if cached else "")]
        # No token reported: no request was answered (a missing key), and its estimated size fills nothing.
        if self.context_window and (input_tokens or output_tokens):
            items.append(f"context {100 * usage.last_request_input_tokens / self.context_window:.0f}%")
        items.append(f"cost {fmt.cost(usage.spend_usd)}")
        return items

    def names_demo(self) -> bool:
        """Whether the label already says it is the offline demo (the resolved label does)."""
        return "offline demo" in self.model_label

    def elapsed(self) -> float:
        end = self._ended if self._ended is not None else self._clock()
        return end - self._started

    def summary(self) -> str:
        """The whole status as one plain line."""
        model = self.model_label if not self.demo or self.names_demo() else f"{self.model_label} (offline demo model)"
        parts = [
            STATES[self.state][0] + " " + self.state_text(),
            self.step_text(),
            model,
            *self.usage_items(),
            fmt.elapsed(self.elapsed()),
        ]
        return " · ".join(part for part in parts if part)
