"""The data model: content blocks, messages, usage and stop reasons.

Every class is a pydantic v2 model. Discriminated unions (``type`` for blocks, ``role`` for
messages) make JSON round trips exact, which the session store and the event copies rely on.

Messages are values: once a message is complete (in a history, a store or a result), nothing
changes it; a variant is a new message (``model_copy(update=...)``) sharing the unchanged parts.
So the loop and the runtime share messages between the caller's list, the model's view, the
transcript and the request instead of copying the transcript; only what goes to outside code
that may change it (listener events, hook contexts, the returned message) is a copy.
"""

from __future__ import annotations

import time
import weakref
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Callable, Generic, Literal, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from pydantic import TypeAdapter

StopReason = Literal["stop", "length", "tool_use", "error", "aborted"]


def now_ms() -> int:
    return int(time.time() * 1000)


class _Block(BaseModel):
    # Unknown fields are refused so a typo never silently drops data on a round trip.
    model_config = ConfigDict(extra="forbid")


def valid_utf8(text: str) -> str:
    """``text``, with any lone surrogate written as an escape so that it encodes as UTF-8.

    Python decodes undecodable bytes (a Latin-1 file name, a stray byte in a program's output)
    to lone surrogates; they cannot be written to a session file or sent to a provider. Such a
    byte becomes ``\\xe9``, any other lone surrogate ``\\udXXX``.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class TextContent(_Block):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None

    @field_validator("text")
    @classmethod
    def _encodable(cls, text: str) -> str:
        return valid_utf8(text)


class ImageContent(_Block):
    type: Literal["image"] = "image"
    data: str  # base64, without a data: prefix
    mime_type: str


class ThinkingContent(_Block):
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    # A redacted block carries its opaque payload in thinking_signature.
    redacted: bool = False


class ToolCall(_Block):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


UserContentBlock = Annotated[Union[TextContent, ImageContent], Field(discriminator="type")]
AssistantContentBlock = Annotated[Union[TextContent, ThinkingContent, ToolCall], Field(discriminator="type")]
UserContent = Union[str, list[UserContentBlock]]


class Cost(_Block):
    """Dollar amounts for one request (or a sum of requests)."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(_Block):
    """Token counts; ``input`` excludes tokens read from or written to the cache."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


class UserMessage(_Block):
    role: Literal["user"] = "user"
    content: UserContent
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(_Block):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContentBlock] = Field(default_factory=list)
    api: str = "litellm"
    provider: str = "openai"
    model: str = ""
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [block for block in self.content if isinstance(block, ToolCall)]

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


class ToolResultMessage(_Block):
    role: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str
    content: list[UserContentBlock] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


Message = Annotated[Union[UserMessage, AssistantMessage, ToolResultMessage], Field(discriminator="role")]


ResultT = TypeVar("ResultT")


class PerMessage(Generic[ResultT]):
    """``compute(message)``, remembered for as long as that message object lives.

    A message is a value nothing changes once it is in a history, and a long session resends
    thousands of them every step: what is derived from one (its request form, its token
    estimate) is computed once. A message whose content grew since (a partial one, still
    streaming) is computed afresh. A result is shared: callers must not change it.
    """

    def __init__(self, compute: Callable[[Any], ResultT]) -> None:
        self._compute = compute
        self._entries: dict[int, tuple[weakref.ref[Any], int, ResultT]] = {}

    def __call__(self, message: Any) -> ResultT:
        key, size = id(message), len(message.content)
        entry = self._entries.get(key)
        if entry is not None and entry[0]() is message and entry[1] == size:
            return entry[2]
        result = self._compute(message)
        self._entries[key] = (weakref.ref(message, partial(_forget, self._entries, key)), size, result)
        return result


def _forget(entries: dict[int, Any], key: int, _gone: object) -> None:
    entries.pop(key, None)


MessageT = TypeVar("MessageT", bound=BaseModel)

_MESSAGE_ADAPTER: TypeAdapter[Message] | None = None


def message_adapter() -> TypeAdapter[Message]:
    """A cached TypeAdapter for the ``Message`` union (building one costs milliseconds)."""
    global _MESSAGE_ADAPTER
    if _MESSAGE_ADAPTER is None:
        from pydantic import TypeAdapter

        _MESSAGE_ADAPTER = TypeAdapter(Message)
    return _MESSAGE_ADAPTER


def message_from_json(data: str | bytes | dict[str, Any]) -> UserMessage | AssistantMessage | ToolResultMessage:
    adapter = message_adapter()
    if isinstance(data, dict):
        return adapter.validate_python(data)
    return adapter.validate_json(data)


def copy_message(message: MessageT) -> MessageT:
    """A deep copy, for outside code (a listener, a hook) that may change what it is given."""
    return message.model_copy(deep=True)


def fast_copy_assistant(message: AssistantMessage) -> AssistantMessage:
    """A deep copy of an assistant message, several times faster than ``model_copy(deep=True)``.

    Streaming emits one snapshot per delta, so this sits on the hot path.
    """
    content = []
    for block in message.content:
        copy = block.model_copy()
        if isinstance(block, ToolCall) and isinstance(copy, ToolCall):
            copy.arguments = copy_json(block.arguments)
        content.append(copy)
    usage = message.usage.model_copy()
    usage.cost = message.usage.cost.model_copy()
    return message.model_copy(update={"content": content, "usage": usage})


def copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def user_text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


_OPEN, _CLOSE = "<turn-context>\n", "\n</turn-context>\n\n"


def with_turn_context(prompt: str, context: str) -> str:
    """The prompt the model gets: the turn's context (what changes every turn, e.g. the date and
    the notebook around the cell) first, then what the user wrote. It travels in the prompt, not
    the system prompt, so a provider's cached prefix stays valid from turn to turn."""
    if not context.strip():
        return prompt
    return f"{_OPEN}{context.strip()}{_CLOSE}{prompt}"


def without_turn_context(text: str) -> str:
    """What the user wrote, for views and replays of the history: ``text`` without its turn context."""
    if text.startswith(_OPEN) and _CLOSE in text:
        return text.split(_CLOSE, 1)[1]
    return text


__all__ = [
    "PerMessage",
    "AssistantContentBlock",
    "AssistantMessage",
    "Cost",
    "ImageContent",
    "Message",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolResultMessage",
    "Usage",
    "UserContent",
    "UserContentBlock",
    "UserMessage",
    "copy_json",
    "copy_message",
    "fast_copy_assistant",
    "message_adapter",
    "message_from_json",
    "now_ms",
    "user_text",
    "with_turn_context",
    "without_turn_context",
]
