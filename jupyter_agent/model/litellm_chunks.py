"""litellm stream chunks -> our stream events, building the assistant message as they arrive.

One ``ChunkAssembler`` per response. Blocks open in order of appearance: thinking
(``delta.reasoning_content``), text (``delta.content``) and tool calls (``delta.tool_calls``,
accumulated per stream index and parsed as JSON when the call ends). A block ends when a block
of another kind (or another tool call) starts, and at the end of the stream. Signatures and
redacted thinking (``delta.thinking_blocks``, as litellm relays Anthropic's) are kept.

This is the hot path of every response: one chunk per token.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Callable, Iterable, Literal, TypeVar

from jupyter_agent.messages import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    copy_json,
    fast_copy_assistant,
)
from jupyter_agent.model.events import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from jupyter_agent.model.transform import unique_tool_call_id

# Arguments that are not a JSON object are kept under this key: the model then reads, in the
# validation error of its call, exactly what it sent.
BlockT = TypeVar("BlockT", TextContent, ThinkingContent, ToolCall)
INVALID_ARGUMENTS_KEY = "_invalid_json_arguments"
CONTENT_FILTERED = "response stopped by the provider's content filter"
_TOOL_FINISH_REASONS = frozenset({"tool_calls", "function_call"})


def parse_arguments(raw: str) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {INVALID_ARGUMENTS_KEY: raw}
    return value if isinstance(value, dict) else {INVALID_ARGUMENTS_KEY: raw}


def _field(item: Any, name: str) -> Any:
    # litellm hands some parts over as dicts (TypedDicts) and others as objects.
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


class ChunkAssembler:
    def __init__(self, partial: AssistantMessage, push: Callable[[Any], None], taken_ids: Iterable[str] = ()) -> None:
        self.partial = partial
        self._push = push
        self._open_kind: str | None = None  # "text" | "thinking" | "tool_call"
        self._open_index = -1
        self._thinking_sealed = False  # a signature ends a thinking block; more thinking opens another
        self._tool_blocks: dict[int, int] = {}  # stream tool index -> content index
        self._tool_arguments: dict[int, list[str]] = {}  # content index -> raw JSON fragments
        self._generated_ids: set[str] = set()
        # Call ids must be unique in a conversation; some providers repeat ``call_0``. A repeated
        # id is renamed, and ``_provider_ids`` keeps the one the provider sends with each fragment.
        self._taken_ids: set[str] = set(taken_ids)
        self._provider_ids: dict[int, str] = {}  # content index -> the id as the provider sent it
        self.finish_reason: str | None = None
        self.raw_usage: Any = None
        self.started = False

    # -- chunks ---------------------------------------------------------------------------------
    def start(self) -> None:
        self.started = True
        self._push(StartEvent(partial=fast_copy_assistant(self.partial)))

    def add(self, chunk: Any) -> None:
        choices = chunk.choices
        if not choices:
            usage = getattr(chunk, "usage", None)
            if usage is not None:
                self.raw_usage = usage
            return
        choice = choices[0]
        delta = choice.delta
        if delta is not None:
            # litellm deletes the fields a chunk lacks (attribute access would raise) and keeps
            # some in pydantic's extras (which ones varies by version): read both dicts directly.
            fields = delta.__dict__
            extra = delta.__pydantic_extra__ or fields
            reasoning = fields.get("reasoning_content") or extra.get("reasoning_content")
            if reasoning:
                self._thinking(reasoning)
            thinking_blocks = fields.get("thinking_blocks") or extra.get("thinking_blocks")
            if thinking_blocks:
                self._thinking_blocks(thinking_blocks)
            content = extra.get("content") or fields.get("content")
            if content:
                self._text(content)
            tool_calls = extra.get("tool_calls") or fields.get("tool_calls")
            if tool_calls:
                for tool_call in tool_calls:
                    self._tool_call(tool_call)
        if choice.finish_reason:
            self.finish_reason = choice.finish_reason
            usage = getattr(chunk, "usage", None)
            if usage is not None:
                self.raw_usage = usage

    # -- text and thinking ----------------------------------------------------------------------
    def _text(self, piece: str) -> None:
        if self._open_kind != "text":
            self._open(TextContent(text=""), "text", TextStartEvent)
        self._block(self._open_index, TextContent).text += piece
        self._push(TextDeltaEvent(content_index=self._open_index, delta=piece, partial=fast_copy_assistant(self.partial)))

    def _thinking(self, piece: str) -> None:
        if self._open_kind != "thinking" or self._thinking_sealed:
            self._open(ThinkingContent(thinking=""), "thinking", ThinkingStartEvent)
        self._block(self._open_index, ThinkingContent).thinking += piece
        self._push(ThinkingDeltaEvent(content_index=self._open_index, delta=piece, partial=fast_copy_assistant(self.partial)))

    def _thinking_blocks(self, blocks: list[Any]) -> None:
        # Thinking text arrives as reasoning_content; these blocks add what replay needs.
        for item in blocks:
            if _field(item, "type") == "redacted_thinking":
                self._close_open()
                self._open(
                    ThinkingContent(thinking="", thinking_signature=_field(item, "data"), redacted=True),
                    "thinking",
                    ThinkingStartEvent,
                )
                self._close_open()
                continue
            signature = _field(item, "signature")
            if signature:
                if self._open_kind != "thinking" or self._thinking_sealed:
                    self._open(ThinkingContent(thinking=""), "thinking", ThinkingStartEvent)
                self._block(self._open_index, ThinkingContent).thinking_signature = signature
                self._thinking_sealed = True

    # -- tool calls -----------------------------------------------------------------------------
    def _tool_call(self, part: Any) -> None:
        stream_index = _field(part, "index") or 0
        call_id = _field(part, "id")
        function = _field(part, "function")
        name = _field(function, "name") if function is not None else None
        fragment = _field(function, "arguments") if function is not None else None
        index = self._tool_blocks.get(stream_index)
        if index is not None and call_id and self._is_other_call(index, call_id):
            index = None  # a provider that reuses stream index 0 for every call
        if index is None:
            if not call_id:
                call_id = f"call_{uuid.uuid4().hex[:24]}"  # local servers sometimes send no id
                self._generated_ids.add(call_id)
            unique_id = unique_tool_call_id(call_id, self._taken_ids, max(40, len(call_id)))
            self._taken_ids.add(unique_id)
            index = self._open(ToolCall(id=unique_id, name=name or "", arguments={}), "tool_call", ToolCallStartEvent)
            self._provider_ids[index] = call_id
            self._tool_blocks[stream_index] = index
            self._tool_arguments[index] = []
        elif name and not self._block(index, ToolCall).name:
            self._block(index, ToolCall).name = name
        if fragment:
            self._tool_arguments[index].append(fragment)
            self._push(ToolCallDeltaEvent(content_index=index, delta=fragment, partial=fast_copy_assistant(self.partial)))

    def _is_other_call(self, index: int, call_id: str) -> bool:
        current = self._provider_ids[index]
        return current != call_id and current not in self._generated_ids

    # -- blocks ---------------------------------------------------------------------------------
    def _block(self, index: int, kind: type[BlockT]) -> BlockT:
        block = self.partial.content[index]
        assert isinstance(block, kind), f"block {index} is a {type(block).__name__}, not a {kind.__name__}"
        return block

    def _open(self, block: Any, kind: str, start_event: type) -> int:
        self._close_open()
        self.partial.content.append(block)
        self._open_kind, self._open_index = kind, len(self.partial.content) - 1
        self._thinking_sealed = False
        self._push(start_event(content_index=self._open_index, partial=fast_copy_assistant(self.partial)))
        return self._open_index

    def _close_open(self) -> None:
        kind, index = self._open_kind, self._open_index
        if kind is None:
            return
        self._open_kind, self._open_index = None, -1
        block = self.partial.content[index]
        if isinstance(block, TextContent):
            self._push(TextEndEvent(content_index=index, content=block.text, partial=fast_copy_assistant(self.partial)))
        elif isinstance(block, ThinkingContent):
            self._push(ThinkingEndEvent(content_index=index, content=block.thinking, partial=fast_copy_assistant(self.partial)))
        else:
            block.arguments = parse_arguments("".join(self._tool_arguments[index]))
            ended = ToolCall(id=block.id, name=block.name, arguments=copy_json(block.arguments))
            self._push(ToolCallEndEvent(content_index=index, tool_call=ended, partial=fast_copy_assistant(self.partial)))

    # -- the end --------------------------------------------------------------------------------
    def finish(self, usage: Usage) -> DoneEvent | ErrorEvent:
        """Ends the open block and returns the final event (not pushed)."""
        self._close_open()
        # A late fragment of an earlier call (interleaving providers) still counts in the result.
        for index, fragments in self._tool_arguments.items():
            self._block(index, ToolCall).arguments = parse_arguments("".join(fragments))
        message = fast_copy_assistant(self.partial)
        message.usage = usage
        reason = self.finish_reason
        if reason == "content_filter":
            return self.failure("error", f"{self.partial.provider}: {CONTENT_FILTERED}", message)
        stop: Literal["stop", "length", "tool_use"]
        if reason == "length":
            stop = "length"
        elif reason in _TOOL_FINISH_REASONS or message.tool_calls:
            stop = "tool_use"
        else:
            stop = "stop"
        message.stop_reason = stop
        return DoneEvent(reason=stop, message=message)

    def failure(
        self, reason: Literal["error", "aborted"], error_message: str, message: AssistantMessage | None = None
    ) -> ErrorEvent:
        message = message or fast_copy_assistant(self.partial)
        message.stop_reason = reason
        message.error_message = error_message
        return ErrorEvent(reason=reason, error=message)
