"""``transform_messages``: replay one model's history to another model.

``transform_for_request`` does the work and remembers where each output message came from;
the loop turns those origins into ``ModelInputMetadata``.

Messages and blocks that need no change are passed through as the same objects, and changed
messages are new objects sharing their unchanged parts: messages are values nothing changes
once made, so a request costs O(messages) rather than a deep copy of the whole transcript every
step; and the pass over a history resumes where the previous step's stopped, so a step costs what
it added rather than what the session already said. A stream function treats its context as read-only.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.long_lived import MANY_NEW_VALUES, long_lived_objects
from jupyter_agent.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    PerMessage,
    PrefixCache,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from jupyter_agent.model.types import HistorySource, Model, ModelInputSource, ToolRepairSource

IMAGE_OMITTED = "(image omitted: model does not support images)"
TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"
NO_RESULT_PROVIDED = "No result provided"

_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def normalize_tool_call_id(tool_call_id: str, model: Model) -> str:
    """The id as the target provider accepts it (Anthropic: 64 safe chars; OpenAI: 40)."""
    if model.provider == "anthropic":
        return _UNSAFE_ID_CHARS.sub("_", tool_call_id)[:64] or "call"
    # OpenAI-style ids may carry "call|item" pairs from the responses API: keep the call part.
    return _UNSAFE_ID_CHARS.sub("_", tool_call_id.split("|", 1)[0])[:40] or "call"


_HISTORY_SOURCES: list[HistorySource] = []
_HISTORY_SOURCES_GROWING = threading.Lock()


def history_source(index: int) -> HistorySource:
    """A shared, frozen source per index: building one per message per request is a hot spot.

    Made by the validator (in Rust: ~0.5 µs) rather than ``model_construct`` (Python: ~3 µs), which
    a long session's first request would call 20 000 times."""
    if len(_HISTORY_SOURCES) <= index:
        with _HISTORY_SOURCES_GROWING:  # two threads growing it at once would misnumber the sources
            while len(_HISTORY_SOURCES) <= index:
                _HISTORY_SOURCES.append(HistorySource(message_index=len(_HISTORY_SOURCES)))
    return _HISTORY_SOURCES[index]


def transform_messages(messages: list[Message], model: Model) -> list[Message]:
    return transform_for_request(messages, model)[0]


def transform_with_origins(messages: list[Message], model: Model) -> list[tuple[Message, ModelInputSource]]:
    return list(zip(*transform_for_request(messages, model)))


@dataclass
class _Transformed:
    """A pass over a history so far: what goes to the model, and what the next message needs."""

    messages: list[Message] = field(default_factory=list)
    sources: list[ModelInputSource] = field(default_factory=list)
    used_ids: set[str] = field(default_factory=set)
    pending: list[tuple[str, ToolCall]] = field(default_factory=list)  # (id in history, call as sent)
    pending_owner: int = -1  # history index of the assistant whose calls are pending


# A step resends the whole history with one or two messages more: the pass resumes where the
# previous step's stopped (per model: what changes for one model is kept for another).
_TRANSFORMED: PrefixCache[_Transformed] = PrefixCache()


def transform_for_request(messages: Sequence[Message], model: Model) -> tuple[list[Message], list[ModelInputSource]]:
    """Every tool call answered once, right after its assistant, under an id unique in the request;
    beside each message, where it came from.

    A result without a matching open call (its assistant was lost, or it answers a call twice)
    is dropped: providers reject the whole request for one such orphan. A call id used before
    in the history (some providers repeat ``call_0``) is renamed, and its result follows it.
    The lists are new; the messages in them are shared with the history and later requests.
    """
    key = (model.provider, model.api, model.id, model.accepts_images)
    start, state = _TRANSFORMED.resume(key, messages)
    if state is None:
        start, state = 0, _Transformed()
    # A long session's first request makes its values in a burst, and they live on.
    with long_lived_objects(len(messages) - start >= MANY_NEW_VALUES):
        _transform_from(start, messages, state, model)
    _TRANSFORMED.keep(key, messages, state)
    # The calls still open at the end are answered in this request only: the next message may answer them.
    tail_messages: list[Message] = []
    tail_sources: list[ModelInputSource] = []
    if state.pending:
        _repair_pending(_Transformed(pending=list(state.pending), pending_owner=state.pending_owner), tail_messages, tail_sources)
    return state.messages + tail_messages, state.sources + tail_sources


def _transform_from(start: int, messages: Sequence[Message], state: _Transformed, model: Model) -> None:
    history_source(len(messages))  # makes every source this request needs
    for index in range(start, len(messages)):
        original = messages[index]
        source = _HISTORY_SOURCES[index]
        if isinstance(original, AssistantMessage):
            if original.stop_reason in ("error", "aborted"):
                continue
            _repair_pending(state, state.messages, state.sources)
            calls, needs_change = _ASSISTANT_FACTS(original)
            assistant = _adapt_assistant(original, calls, needs_change, model, state.used_ids)
            state.pending.extend(zip((call.id for call in calls), calls if assistant is original else assistant.tool_calls))
            state.pending_owner = index
            state.messages.append(assistant)
            state.sources.append(source)
        elif isinstance(original, ToolResultMessage):
            call = _take_pending(state.pending, original.tool_call_id)
            if call is not None:
                state.messages.append(_adapt_tool_result(original, model, call.id))
                state.sources.append(source)
        else:
            _repair_pending(state, state.messages, state.sources)
            state.messages.append(_adapt_user(original, model))
            state.sources.append(source)


def _repair_pending(state: _Transformed, messages: list[Message], sources: list[ModelInputSource]) -> None:
    """Answers each pending call with an error result, appended to ``messages`` (and its source)."""
    for _, call in state.pending:
        synthetic = ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(text=NO_RESULT_PROVIDED)],
            is_error=True,
            timestamp=0,  # the same value in every request that carries it: a later pass compares it as unchanged
        )
        messages.append(synthetic)
        sources.append(ToolRepairSource(message_index=state.pending_owner, tool_call_id=call.id))
    state.pending.clear()


def _take_pending(pending: list[tuple[str, ToolCall]], tool_call_id: str) -> ToolCall | None:
    for position, (history_id, call) in enumerate(pending):
        if history_id == tool_call_id:
            del pending[position]
            return call
    return None


def unique_tool_call_id(tool_call_id: str, used_ids: set[str], limit: int = 40) -> str:
    """``tool_call_id``, or ``<id>_<n>`` (within ``limit`` characters) when it is taken."""
    if tool_call_id not in used_ids:
        return tool_call_id
    for number in itertools.count(2):
        suffix = f"_{number}"
        candidate = tool_call_id[: limit - len(suffix)] + suffix
        if candidate not in used_ids:
            return candidate
    raise AssertionError("unreachable")


def _adapt_assistant(
    message: AssistantMessage, calls: list[ToolCall], needs_change: bool, model: Model, used_ids: set[str]
) -> AssistantMessage:
    same_model = (message.provider, message.api, message.model) == (model.provider, model.api, model.id)
    # A provider accepts its own ids (Gemini even stores thought signatures in them), so only
    # ids from another provider are normalized.
    foreign_ids = message.provider != model.provider
    limit = 64 if model.provider == "anthropic" else 40
    new_ids = []
    for call in calls:
        wanted = normalize_tool_call_id(call.id, model) if foreign_ids else call.id
        new_id = unique_tool_call_id(wanted, used_ids, max(limit, len(wanted)))
        used_ids.add(new_id)
        new_ids.append(new_id)
    renamed = any(new_id != call.id for new_id, call in zip(new_ids, calls))
    if same_model and not renamed and not needs_change:
        return message
    ids = iter(new_ids)
    blocks: list[TextContent | ThinkingContent | ToolCall] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if block.redacted:
                if same_model:
                    blocks.append(block)
                continue
            if same_model and block.thinking_signature:
                blocks.append(block)
            elif not block.thinking.strip():
                continue
            elif same_model:
                blocks.append(block)
            else:
                blocks.append(TextContent(text=block.thinking))
        elif isinstance(block, TextContent):
            blocks.append(block if same_model else TextContent(text=block.text))
        else:
            blocks.append(ToolCall(id=next(ids), name=block.name, arguments=dict(block.arguments)))
    return message.model_copy(update={"content": blocks})  # a new list; unchanged blocks are shared


def _needs_change(block: TextContent | ThinkingContent | ToolCall) -> bool:
    """For a same-model replay: only empty unsigned thinking is dropped."""
    return (
        isinstance(block, ThinkingContent) and not block.redacted and not block.thinking_signature and not block.thinking.strip()
    )


# What a request needs to know of an assistant message, found once per message (a long session
# resends thousands every step): its tool calls, and whether a same-model replay changes it.
_ASSISTANT_FACTS: PerMessage[tuple[list[ToolCall], bool]] = PerMessage(
    lambda message: (message.tool_calls, any(_needs_change(block) for block in message.content))
)


def _adapt_tool_result(message: ToolResultMessage, model: Model, tool_call_id: str) -> ToolResultMessage:
    has_images = any(isinstance(block, ImageContent) for block in message.content)
    if message.tool_call_id == tool_call_id and (model.accepts_images or not has_images):
        return message
    update: dict[str, Any] = {"tool_call_id": tool_call_id}
    if not model.accepts_images:
        update["content"] = _downgrade_images(message.content, TOOL_IMAGE_OMITTED)
    return message.model_copy(update=update)


def _adapt_user(message: UserMessage, model: Model) -> UserMessage:
    if isinstance(message.content, str) or model.accepts_images:
        return message
    if not any(isinstance(block, ImageContent) for block in message.content):
        return message
    return message.model_copy(update={"content": _downgrade_images(message.content, IMAGE_OMITTED)})


def _downgrade_images(blocks: Sequence[TextContent | ImageContent], placeholder: str) -> list[TextContent | ImageContent]:
    result: list[TextContent | ImageContent] = []
    for block in blocks:
        if isinstance(block, ImageContent):
            # Several images in a row collapse into one placeholder.
            if result and isinstance(result[-1], TextContent) and result[-1].text == placeholder:
                continue
            result.append(TextContent(text=placeholder))
        else:
            result.append(block)
    return result
