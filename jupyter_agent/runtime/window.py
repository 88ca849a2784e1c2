"""The context window: token estimates, the next request's projected size, the output clamp.

The provider's reported input size of the latest request is the truth; messages appended since
are estimated at about four characters a token.
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from jupyter_agent.messages import ImageContent, Message, TextContent, ThinkingContent, ToolCall
from jupyter_agent.model import ToolSpec

_CHARS_PER_TOKEN = 4
# Role markers and separators cost a few tokens per message on every provider.
_MESSAGE_OVERHEAD = 4
# A typical screenshot or plot is billed at roughly 1-2k tokens.
IMAGE_TOKENS = 1_600
# A response with less room than this cannot say anything useful.
MIN_OUTPUT_TOKENS = 1_024
# The default compaction threshold leaves a fifth of the window for the answer and new input.
DEFAULT_COMPACT_FRACTION = 0.8


def estimate_message_tokens(message: Message) -> int:
    chars = 0
    images = 0
    content = message.content
    if isinstance(content, str):
        chars = len(content)
    else:
        for block in content:
            if isinstance(block, TextContent):
                chars += len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += len(block.name) + len(json.dumps(block.arguments, default=str))
            elif isinstance(block, ImageContent):
                images += 1
    return chars // _CHARS_PER_TOKEN + images * IMAGE_TOKENS + _MESSAGE_OVERHEAD


def estimate_tokens(messages: Iterable[Message]) -> int:
    return sum(estimate_message_tokens(message) for message in messages)


def estimate_overhead(system_prompt: str | None, tools: Sequence[ToolSpec]) -> int:
    """What every request carries besides the messages: the system prompt and tool schemas."""
    chars = len(system_prompt or "") + sum(
        len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters)) for tool in tools
    )
    return chars // _CHARS_PER_TOKEN


class ContextWindow:
    """Tracks the model's view size: the last reported request plus estimates of what followed."""

    def __init__(self, window_tokens: int, max_output_tokens: int, overhead_tokens: int) -> None:
        self.window_tokens = window_tokens
        self.max_output_tokens = max_output_tokens
        self.overhead_tokens = overhead_tokens
        self.view_tokens = 0  # running estimate of the messages the model sees
        self._base = 0  # projected input when the view estimate was ``_base_view``
        self._base_view = 0

    def reset(self, view: Iterable[Message]) -> None:
        """After the view was replaced (start, compaction): estimate it from scratch."""
        self.view_tokens = estimate_tokens(view)
        self._base = self.view_tokens + self.overhead_tokens
        self._base_view = self.view_tokens

    def appended(self, message: Message) -> None:
        self.view_tokens += estimate_message_tokens(message)

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
