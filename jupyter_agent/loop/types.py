"""Types of the agent loop: tools, options, callbacks, loop events and the loop's error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Sequence, Union

from pydantic import BaseModel

from jupyter_agent.errors import JupyterAgentError
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


class AgentLoopError(RuntimeError, JupyterAgentError):
    """A failure of the loop itself (not invalid input, not cancellation)."""


class ResponseTruncated(AgentLoopError):
    """The model's response reached its output limit (stop reason ``length``): the run ends there."""


@dataclass
class ToolOutput:
    # Text, or blocks (a string block is text); normalized into the result's content blocks.
    content: str | Sequence[str | TextContent | ImageContent] | None
    details: Any = None


@dataclass(frozen=True)
class ApprovalNote:
    """What an approval prompt shows beside a call's arguments (what they do not say: the cells a
    call will run, how long one took last time); ``ask_always``: ask even when the user allowed the
    tool or this exact call for the session (never in a mode that asks nothing)."""

    text: str
    ask_always: bool = False


# Any: each tool's execute takes its own parameters model, which Callable cannot express.
# What execute may return: text, blocks, a ToolOutput, or nothing.
ToolReturn = Union[ToolOutput, str, Sequence[Any], None]
ToolExecute = Callable[[Any, AbortSignal], Awaitable[ToolReturn]]


@dataclass(frozen=True)
class ApprovalPreview:
    """What a call will do, in its tool's own words: shown when the call asks for approval, so
    the user judges the change, not a JSON of arguments (``AgentTool.approval_preview``)."""

    text: str
    # How it is drawn: "diff" a unified diff (lines coloured by their sign), "code" a code block,
    # "text" plain lines.
    kind: Literal["diff", "code", "text"] = "text"
    # True: ``text`` says all the call will do (a notebook edit's diff names the cell and holds the
    # new source), so the prompt folds the arguments away. False: shown above the arguments.
    complete: bool = False


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
    # What a call will do, of the tool's own making (a notebook edit: the cell's diff; a cell run:
    # the cell as the user sees it), shown when the call asks for approval. Given the call's
    # arguments as JSON; None: the prompt shows the arguments alone. A preview that raises is
    # dropped (the arguments show everything). It may be async (a cell run asks the live notebook
    # for the cell); it is made only when the call asks.
    approval_preview: Callable[[dict[str, Any]], ApprovalPreview | None | Awaitable[ApprovalPreview | None]] | None = None
    # Seconds a call with these (validated) arguments may run before the tool interrupts it;
    # ``None``: no limit. Hosts show it while the call runs (``ToolCallEvent.time_limit``).
    time_limit: Callable[[Any], float | None] | None = None
    # What the approval prompt of a call with these (validated) arguments adds (see ApprovalNote).
    approval_note: Callable[[Any], ApprovalNote | None] | None = None

    def limit_for(self, arguments: dict[str, Any]) -> float | None:
        """``time_limit`` for raw arguments; ``None`` when there is none or they do not validate."""
        if self.time_limit is None:
            return None
        try:
            return self.time_limit(self.parameters.model_validate(arguments))
        except ValueError:  # invalid arguments never run: there is nothing to limit
            return None

    # The spec last made and the parameters model it was made of: a turn asks for every tool's spec
    # for each estimate and each request, and a spec's validation copies the schema.
    _made_spec: tuple[type[BaseModel], ToolSpec] | None = field(default=None, init=False, repr=False, compare=False)

    def spec(self) -> ToolSpec:
        made = self._made_spec
        if (
            made is not None
            and made[0] is self.parameters
            and (made[1].name, made[1].description) == (self.name, self.description)
        ):
            return made[1]
        # Constructed, not validated: validation would copy the schema, which ``tool_schema`` makes
        # once per parameters model, so that estimates can key what they work out of it by identity.
        spec = ToolSpec.model_construct(name=self.name, description=self.description, parameters=tool_schema(self.parameters))
        self._made_spec = (self.parameters, spec)
        return spec


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
