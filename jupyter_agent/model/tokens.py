"""Token estimates without a tokenizer: about four characters a token.

Used where no provider count exists yet: the runtime's projection of the next request, and the
scripted model's reported usage.
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from jupyter_agent.messages import ImageContent, Message, PerMessage, PrefixCache, TextContent, ThinkingContent, ToolCall
from jupyter_agent.model.types import ToolSpec

_CHARS_PER_TOKEN = 4
# One encoder for every call's arguments: json.dumps(default=...) builds one per call.
_ARGUMENTS = json.JSONEncoder(default=str)
# Role markers and separators cost a few tokens per message on every provider.
_MESSAGE_OVERHEAD = 4
# A typical screenshot or plot is billed at roughly 1-2k tokens.
IMAGE_TOKENS = 1_600


def _estimate_message_tokens(message: Message) -> int:
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
                chars += len(block.name) + len(_ARGUMENTS.encode(block.arguments))
            elif isinstance(block, ImageContent):
                images += 1
    return chars // _CHARS_PER_TOKEN + images * IMAGE_TOKENS + _MESSAGE_OVERHEAD


estimate_message_tokens: PerMessage[int] = PerMessage(_estimate_message_tokens)


def estimate_tokens(messages: Iterable[Message]) -> int:
    return sum(estimate_message_tokens(message) for message in messages)


# A run starts from the session's history, which the previous run's last estimate covered but for
# a message or two: the sum resumes there.
_HISTORY_TOKENS: PrefixCache[int] = PrefixCache()


def estimate_history_tokens(messages: Sequence[Message]) -> int:
    """``estimate_tokens`` of a history, resumed from the previous estimate of the list it extends."""
    start, total = _HISTORY_TOKENS.resume(None, messages)
    total = (total or 0) + estimate_tokens(messages[start:])
    _HISTORY_TOKENS.keep(None, messages, total)
    return total


def estimate_overhead(system_prompt: str | None, tools: Sequence[ToolSpec], step_context: str | None = None) -> int:
    """What a request carries besides the messages: the system prompt, tool schemas and its step context."""
    chars = (
        len(system_prompt or "")
        + len(step_context or "")
        + sum(len(tool.name) + len(tool.description) + _schema_chars(tool.parameters) for tool in tools)
    )
    return chars // _CHARS_PER_TOKEN


# A tool's schema is one dict for the life of its tool (``loop.types.tool_schema`` makes it once):
# its length is worked out once, not in each of a turn's estimates (~20 µs a tool, 20 tools, 2 a turn).
_SCHEMA_CHARS: dict[int, tuple[object, int]] = {}  # id -> (the schema, kept alive while cached; its length)
_SCHEMA_CHARS_KEPT = 1_024  # MCP servers' tools bring schemas of their own; a full cache starts over


def _schema_chars(parameters: object) -> int:
    cached = _SCHEMA_CHARS.get(id(parameters))
    if cached is not None and cached[0] is parameters:
        return cached[1]
    chars = len(json.dumps(parameters))
    if len(_SCHEMA_CHARS) >= _SCHEMA_CHARS_KEPT:
        _SCHEMA_CHARS.clear()
    _SCHEMA_CHARS[id(parameters)] = (parameters, chars)
    return chars
