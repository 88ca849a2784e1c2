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

import itertools
import operator
import threading
import time
import weakref
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Callable, Generic, Literal, TypeAlias, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jupyter_agent.long_lived import MANY_NEW_VALUES, long_lived_objects

if TYPE_CHECKING:
    from pydantic import TypeAdapter

StopReason = Literal["stop", "length", "tool_use", "error", "aborted"]

# A JSON document as ``json.loads`` gives it: what a payload (a tool's arguments, an MCP message, a
# session record, a notebook cell) is until the code that reads it checks its shape.
JsonValue: TypeAlias = "dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"


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

    Every ``PerMessage`` keeps its results in one table shared by all of them, a row per message
    (one weak reference, one list), so a long session's thousands of messages cost the garbage
    collector a few objects each rather than a few per derived value.
    """

    def __init__(self, compute: Callable[[Any], ResultT]) -> None:
        self._compute = compute
        self._slot = next(_SLOTS)
        # A step resends the previous step's list and a message or two: ``all`` resumes there.
        self._lists: PrefixCache[list[ResultT]] = PrefixCache(size=4)

    def __call__(self, message: Any) -> ResultT:
        key, size = id(message), len(message.content)
        row = _DERIVED.get(key)
        if row is None or row[0]() is not message or row[1] != size:
            row = _DERIVED[key] = [_MessageRef(message, key), size]
        slot = self._slot
        if len(row) <= slot:
            row.extend([_MISSING] * (slot + 1 - len(row)))
        result = row[slot]
        if result is _MISSING:
            result = row[slot] = self._compute(message)
        return result  # type: ignore[no-any-return]  # the slot holds this PerMessage's results only

    def all(self, messages: Sequence[Any]) -> list[ResultT]:
        """``[self(message) for message in messages]``, resumed from the previous call's list when
        ``messages`` extends it (its last message is looked at again: it may have grown). A long
        list whose first message has no value yet (a session's first request after a restart, a
        new gate) makes thousands of values that live on: made with the collector paused, and
        frozen after (``long_lived``)."""
        start, results = self._lists.resume(None, messages)
        if results is None:
            results = []
        else:
            start -= 1  # the list it extends ends at ``start`` (never 0: an empty list is not kept)
            del results[start:]
        burst = len(messages) - start >= MANY_NEW_VALUES and not self._has(messages[start])
        with long_lived_objects(burst):
            results.extend(self(message) for message in messages[start:])
        self._lists.keep(None, messages, results)
        return list(results)

    def _has(self, message: Any) -> bool:
        row = _DERIVED.get(id(message))
        return (
            row is not None
            and row[0]() is message
            and row[1] == len(message.content)
            and len(row) > self._slot
            and row[self._slot] is not _MISSING
        )


class _MessageRef(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that knows its row of ``_DERIVED`` (one callback for every row)."""

    __slots__ = ("key",)

    def __new__(cls, message: Any, key: int) -> _MessageRef:
        return super().__new__(cls, message, _forget)

    def __init__(self, message: Any, key: int) -> None:
        super().__init__(message, _forget)  # type: ignore[call-arg]  # weakref.ref takes (object, callback)
        self.key = key


# id(message) -> [weak reference, len(content) when computed, a result per PerMessage slot].
_DERIVED: dict[int, list[Any]] = {}


def _forget(ref: _MessageRef, derived: dict[int, list[Any]] = _DERIVED) -> None:
    # The table is bound here: at interpreter exit the module's globals are None before the
    # last messages go, and their callbacks still run.
    row = derived.get(ref.key)
    if row is not None and row[0] is ref:  # not a newer message that got the same id
        del derived[ref.key]


_SLOTS = itertools.count(2)
_MISSING = object()


StateT = TypeVar("StateT")

# Beyond this many differing objects the lists are compared as new: comparing messages by value
# costs more than the work resumed for a few, and a long differing run is another history.
_VALUE_COMPARED = 64


class PrefixCache(Generic[StateT]):
    """The state of a left-to-right pass over a history, resumed where the previous pass stopped.

    A step only appends to the history it resends, so a pass over it (the request's messages,
    their token count) continues from the state it reached over the longest earlier list the new
    list starts with, and starts over otherwise (a compaction, another history). The lists are
    compared by identity, except for a short stretch of equal copies (a session file's copies of
    the previous turn's messages). ``size`` lists are remembered, at most ``PER_START`` of them
    starting with the same message under the same ``key`` (what the pass depends on besides the
    messages, e.g. the model): a whole history and that history before its last turn and before its
    first, which a cell run again continues from (``session/preload.continued``). The cache holds
    them (and so their messages) until newer ones push them out. Safe to share between threads (the kernel's warm-up thread makes a session's first
    request ahead: ``notebook/request_ahead``).
    """

    PER_START = 3

    def __init__(self, size: int = 8) -> None:
        self._size = size
        # (key, id of the first message, length) -> (the list, the state after it), oldest first.
        self._entries: dict[tuple[Hashable, int, int], tuple[list[Any], StateT]] = {}
        # Why a lock: evicting the oldest entry iterates the dict, which another thread may change.
        self._lock = threading.Lock()

    def resume(self, key: Hashable, messages: Sequence[Any]) -> tuple[int, StateT | None]:
        """(the index to continue at, the state there), or (0, None) to start over. The state is
        the caller's now (it leaves the cache, so a pass that fails leaves nothing half done):
        give it back with ``keep``."""
        if not messages:
            return 0, None
        start = id(messages[0])
        with self._lock:
            candidates = sorted(
                (entry for entry in self._entries if entry[1] == start and entry[0] == key and entry[2] <= len(messages)),
                key=lambda entry: -entry[2],
            )
            for candidate in candidates:
                seen, state = self._entries[candidate]
                if _starts_with(messages, seen):
                    del self._entries[candidate]
                    return len(seen), state
        return 0, None

    def keep(self, key: Hashable, messages: Sequence[Any], state: StateT) -> None:
        """Remembers ``state`` as the pass's state after ``messages`` (copied: the caller's list grows)."""
        if not messages:
            return
        seen = list(messages)
        start = id(messages[0])
        with self._lock:
            self._entries.pop((key, start, len(seen)), None)  # the newer state of the same list wins
            same_start = [entry for entry in self._entries if entry[1] == start and entry[0] == key]
            while len(same_start) >= self.PER_START:
                del self._entries[same_start.pop(0)]  # the oldest lists of this history
            self._entries[(key, start, len(seen))] = (seen, state)
            while len(self._entries) > self._size:
                del self._entries[next(iter(self._entries))]  # the oldest


def _starts_with(messages: Sequence[Any], seen: list[Any]) -> bool:
    same = list(map(operator.is_, seen, messages))
    try:
        first = same.index(False)
    except ValueError:
        return True
    if len(seen) - first > _VALUE_COMPARED:
        return False
    try:
        return list(messages[first : len(seen)]) == seen[first:]
    except Exception:  # noqa: BLE001 - a value in ``details`` that cannot be compared: not the same
        return False


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
    "PrefixCache",
    "AssistantContentBlock",
    "AssistantMessage",
    "Cost",
    "ImageContent",
    "JsonObject",
    "JsonValue",
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
