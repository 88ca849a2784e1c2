"""The context window: the next request's projected size and the output clamp.

The provider's reported input size of the latest request is the truth; messages appended since
are estimated (``jupyter_agent.model.tokens``).
"""

from __future__ import annotations

from collections.abc import Sequence

from jupyter_agent.messages import Message
from jupyter_agent.model.tokens import estimate_history_tokens, estimate_message_tokens

# A response with less room than this cannot say anything useful.
MIN_OUTPUT_TOKENS = 1_024
# The default compaction threshold leaves a fifth of the window for the answer and new input.
DEFAULT_COMPACT_FRACTION = 0.8


class ContextWindow:
    """Tracks the model's view size: the last reported request plus estimates of what followed."""

    def __init__(self, window_tokens: int, max_output_tokens: int, overhead_tokens: int) -> None:
        self.window_tokens = window_tokens
        self.max_output_tokens = max_output_tokens
        self.overhead_tokens = overhead_tokens
        self.view_tokens = 0  # running estimate of the messages the model sees
        self._base = 0  # projected input when the view estimate was ``_base_view``
        self._base_view = 0

    def reset(self, view: Sequence[Message]) -> None:
        """After the view was replaced (start, compaction): estimate it from scratch."""
        self.view_tokens = estimate_history_tokens(view)
        self._base = self.view_tokens + self.overhead_tokens
        self._base_view = self.view_tokens

    def appended(self, message: Message) -> None:
        self.view_tokens += estimate_message_tokens(message)

    def shrunk(self, saved_tokens: int) -> None:
        """Messages of the view were made smaller (by about ``saved_tokens``) in place of others."""
        self.view_tokens -= saved_tokens

    def reported(self, request_input_tokens: int) -> None:
        """The provider's count for the request whose view is the current estimate."""
        if request_input_tokens > 0:
            self._base = request_input_tokens
            self._base_view = self.view_tokens

    def projected_input(self, extra_tokens: int = 0) -> int:
        return self._base + (self.view_tokens - self._base_view) + extra_tokens

    def min_output(self) -> int:
        return min(MIN_OUTPUT_TOKENS, self.max_output_tokens)

    def fits(self, input_tokens: int) -> bool:
        return self.window_tokens - input_tokens >= self.min_output()

    def output_budget(self, requested: int, model_max_tokens: int, input_tokens: int) -> int:
        """``requested`` clamped to the model's output limit and to what the window leaves."""
        room = self.window_tokens - input_tokens
        return max(1, min(requested, model_max_tokens, room))
