"""Types of the agent loop: tools, options, callbacks, loop events and the loop's error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Sequence, Union

from pydantic import BaseModel

from jupyter_agent.loop.abort import AbortSignal
from jupyter_agent.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserContent,
)
from jupyter_agent.model import AssistantMessageEvent, Model, StreamFn, StreamOptions, ToolSpec


class AgentLoopError(RuntimeError):
    """A failure of the loop itself (not invalid input, not cancellation)."""


@dataclass
class ToolOutput:
    # Text, or blocks (a string block is text); normalized into the result's content blocks.
    content: str | Sequence[str | TextContent | ImageContent] | None
    details: Any = None


# Any: each tool's execute takes its own parameters model, which Callable cannot express.
# What execute may return: text, blocks, a ToolOutput, or nothing.
ToolReturn = Union[ToolOutput, str, Sequence[Any], None]
ToolExecute = Callable[[Any, AbortSignal], Awaitable[ToolReturn]]


@dataclass
class AgentTool:
    name: str
    description: str
    parameters: type[BaseModel]
    execute: ToolExecute
    label: str | None = None
    # Read-only tools are never gated by a permission policy.
    read_only: bool = False
    # For a tool that only sometimes changes things (memory: list/read vs write/delete): calls for
    # which this returns True are treated as read-only and never gated either.
    read_only_call: Callable[[Any], bool] | None = None

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=tool_schema(self.parameters))


_SCHEMA_CACHE: dict[type, dict[str, Any]] = {}


def tool_schema(parameters: type[BaseModel]) -> dict[str, Any]:
    # JSON schema generation costs milliseconds; a tool's schema never changes.
    schema = _SCHEMA_CACHE.get(parameters)
    if schema is None:
        schema = parameters.model_json_schema()
        schema.pop("title", None)
        _SCHEMA_CACHE[parameters] = schema
    return schema


@dataclass
class RequestPreparation:
    """Overrides for one request and its tool batch; ``None`` fields keep the run's option.

    ``step_context`` has no run-wide option: it is this request's alone (``Context.step_context``),
    sent after the history and never written into it, so the next request carries its own."""

    system_prompt: str | None = None
    tools: Sequence[AgentTool] | None = None
    stream_fn: StreamFn | None = None
    stream_options: StreamOptions | None = None
    model: Model | None = None
    step_context: str | None = None


@dataclass
class TurnInfo:
    message: AssistantMessage
    history: list[Message]  # an isolated deep copy


@dataclass
class TurnDecision:
    end: bool = False
    # Replaces the contents of the loop's history list in place (how a host compacts).
    history: list[Message] | None = None


SteeringFn = Callable[[AbortSignal], Union[Awaitable[Sequence[UserContent]], Sequence[UserContent]]]
PrepareRequestFn = Callable[[AbortSignal], Awaitable[RequestPreparation | None] | RequestPreparation | None]
FinishTurnFn = Callable[
    [TurnInfo, AbortSignal],
    Awaitable[Literal["end"] | TurnDecision | None] | Literal["end"] | TurnDecision | None,
]


@dataclass
class AgentLoopOptions:
    model: Model
    stream_fn: StreamFn | None = None
    system_prompt: str | None = None
    tools: Sequence[AgentTool] = field(default_factory=tuple)
    stream_options: StreamOptions | None = None
    max_turns: int | None = None
    get_steering_messages: SteeringFn | None = None
    get_follow_up_messages: SteeringFn | None = None
    prepare_request: PrepareRequestFn | None = None
    finish_turn: FinishTurnFn | None = None


# Loop events are plain dataclasses: one is built per streamed delta, so construction is on
# the hot path, and their payloads are already copies made for the listener.
@dataclass(slots=True)
class MessageStartEvent:
    message: Message
    type: Literal["message_start"] = "message_start"


@dataclass(slots=True)
class MessageUpdateEvent:
    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent
    type: Literal["message_update"] = "message_update"


@dataclass(slots=True)
class MessageEndEvent:
    message: Message
    type: Literal["message_end"] = "message_end"


@dataclass(slots=True)
class ToolExecutionStartEvent:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(slots=True)
class ToolExecutionEndEvent:
    tool_call_id: str
    tool_name: str
    result: ToolResultMessage
    is_error: bool
    type: Literal["tool_execution_end"] = "tool_execution_end"


LoopEvent = Union[MessageStartEvent, MessageUpdateEvent, MessageEndEvent, ToolExecutionStartEvent, ToolExecutionEndEvent]
EventListener = Callable[[LoopEvent], Awaitable[None] | None]
