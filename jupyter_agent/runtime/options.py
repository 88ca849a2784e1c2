"""``run_agent``'s options, declared once: a frozen pydantic model that validates and resolves them.

Every mistake of the caller is a ``ValueError`` with an exact message, raised by ``run_agent``
itself before a task starts, so it surfaces where the call was made. The field types do the
checking; ``CALLER_MESSAGES`` turns pydantic's first error into the message the caller reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    InstanceOf,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from jupyter_agent.model import Model, StreamFn, StreamOptions
from jupyter_agent.runtime.compaction import CompactionMode
from jupyter_agent.runtime.limits import Hook
from jupyter_agent.runtime.permissions import PermissionPolicy
from jupyter_agent.runtime.spend import Rates
from jupyter_agent.runtime.window import DEFAULT_COMPACT_FRACTION

_MESSAGE_TYPES = frozenset({UserMessage, AssistantMessage, ToolResultMessage})
# One model response; long enough for a full file rewrite, short of most models' output cap.
DEFAULT_MAX_OUTPUT_TOKENS = 16_384
# The last few exchanges carry the working state; older ones are what a summary is for.
DEFAULT_KEEP_RECENT = 8

# Strict: ``True`` must not mean "one" and ``2.5`` must not be rounded to a step count.
PositiveInt = Annotated[int, Field(strict=True, gt=0)]
PositiveFinite = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
StrictText = Annotated[str, Field(strict=True)]


def positive_integer(name: str) -> str:
    return f"{name} must be a positive integer"


def unknown_compaction(mode: object) -> str:
    return f'Unknown compaction mode: {mode!r} (expected "model", "truncate" or "off")'


MAX_SPEND_INVALID = "max_spend_usd must be a positive number"
MODEL_INVALID = "model must be a Model or a model name"
RATES_KEYS = "rates accepts input, output, cache_read and cache_write"


def _type_name(value: object) -> str:
    return type(value).__name__


# The caller's message for an invalid value of each field, from the offending input.
CALLER_MESSAGES: dict[str, Callable[[object], str]] = {
    "model": lambda _: MODEL_INVALID,
    "system": lambda _: "system must be a string or None",
    "tools": lambda value: f"tools must be AgentTool instances, got {_type_name(value)}",
    "messages": lambda value: f"messages must be Message objects, got {_type_name(value)}",
    "stream_fn": lambda _: "stream_fn must be callable or None",
    "max_steps": lambda _: positive_integer("max_steps"),
    "max_output_tokens": lambda _: positive_integer("max_output_tokens"),
    "max_context_tokens": lambda _: positive_integer("max_context_tokens"),
    "max_spend_usd": lambda _: MAX_SPEND_INVALID,
    "rates": lambda _: "rates must be a Rates, a mapping or None",
    "compact_at_tokens": lambda _: positive_integer("compact_at_tokens"),
    "compaction": unknown_compaction,
    "compact_keep_recent": lambda _: positive_integer("compact_keep_recent"),
    "prepare_step": lambda _: "prepare_step must be callable or None",
    "should_stop": lambda _: "should_stop must be callable or None",
    "should_continue": lambda _: "should_continue must be callable or None",
    "permissions": lambda _: "permissions must be a PermissionPolicy or None",
    "signal": lambda _: "signal must be an AbortSignal or None",
    "stream_options": lambda _: "stream_options must be a StreamOptions or None",
}


@dataclass
class StepOverrides:
    """What ``prepare_step`` may change for one step; ``None`` keeps the run's option."""

    # Names of the run's tools; an AgentTool instead of a name adds a tool that appeared during
    # the run (an MCP server's changed list), gated like the run's own.
    tools: Sequence[str | AgentTool] | None = None
    tool_choice: str | dict[str, Any] | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    system: str | None = None
    model: Model | str | None = None
    # Sent after this step's history and never kept in it (``Context.step_context``): what changes
    # from step to step (the task plan, the memory index) without changing the cached prefix.
    step_context: str | None = None


STEP_CONTEXT_INVALID = "step_context must be a string or None"


class RunOptions(BaseModel):
    """The options of one ``run_agent`` call, validated; a model name is resolved to its ``Model``.

    The prompt is not one of them: it is what the run answers, checked by ``run_agent`` with the
    loop's own rule once the options name the model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: InstanceOf[Model]
    system: StrictText | None = None
    tools: tuple[InstanceOf[AgentTool], ...] = ()
    messages: list[Message] = Field(default=None, validate_default=True)  # None: a new conversation
    stream_fn: Annotated[Callable[..., Any] | None, Field(validate_default=True)] = None
    max_steps: PositiveInt | None = None  # opt-in hard cap: no default ceiling
    max_output_tokens: PositiveInt = DEFAULT_MAX_OUTPUT_TOKENS
    max_context_tokens: PositiveInt | None = None  # default: the model's window
    max_spend_usd: PositiveFinite | None = None
    rates: InstanceOf[Rates] | None = None
    compact_at_tokens: PositiveInt | None = None  # default: 80 % of the window
    compaction: CompactionMode = "model"
    compact_keep_recent: PositiveInt = DEFAULT_KEEP_RECENT
    prepare_step: Hook | None = None
    should_stop: Hook | None = None
    should_continue: Hook | None = None
    permissions: InstanceOf[PermissionPolicy] | None = None  # None allows every tool (the SDK default)
    signal: InstanceOf[AbortSignal] | None = None
    stream_options: InstanceOf[StreamOptions] | None = None

    @classmethod
    def validated(cls, arguments: Mapping[str, object]) -> RunOptions:
        """The options, or the caller's first mistake as a ``ValueError`` with its exact message."""
        try:
            return cls.model_validate(arguments)
        except ValidationError as invalid:
            raise ValueError(caller_message(invalid)) from None

    @property
    def window_tokens(self) -> int:
        return self.max_context_tokens or self.model.context_window

    @property
    def compaction_threshold(self) -> int:
        """The latest request's input size that triggers compaction."""
        return self.compact_at_tokens or int(self.window_tokens * DEFAULT_COMPACT_FRACTION)

    @property
    def stream(self) -> StreamFn:
        assert self.stream_fn is not None  # filled in by validation
        return self.stream_fn

    @field_validator("model", mode="before")
    @classmethod
    def _resolve_model(cls, value: object) -> object:
        return resolve_model(value) if isinstance(value, str) else value

    @field_validator("tools", mode="before")
    @classmethod
    def _no_tools(cls, value: object) -> object:
        return () if value is None else value

    @field_validator("tools")
    @classmethod
    def _unique_names(cls, tools: tuple[AgentTool, ...]) -> tuple[AgentTool, ...]:
        names: set[str] = set()
        for tool in tools:
            if tool.name in names:
                raise ValueError(f"Duplicate tool name: {tool.name}")
            names.add(tool.name)
        return tools

    @field_validator("messages", mode="wrap")
    @classmethod
    def _own_list(cls, value: object, validate: ValidatorFunctionWrapHandler) -> list[Message]:
        # The run appends to and compacts its own list. Messages are values that nothing changes
        # once made, so the caller's are shared, not copied: a copy of a long session per run
        # cost more than the request itself. Messages need no validation again (it costs
        # milliseconds for a long session): only what is not one (a JSON dict) is validated.
        if value is None:
            return []
        if isinstance(value, (list, tuple)) and set(map(type, value)) <= _MESSAGE_TYPES:
            return list(value)
        return list(validate(value))

    @field_validator("stream_fn")
    @classmethod
    def _default_stream(cls, stream_fn: StreamFn | None) -> StreamFn:
        return stream_fn or default_stream_fn()

    @field_validator("rates", mode="before")
    @classmethod
    def _rates_from_mapping(cls, value: object) -> object:
        if not isinstance(value, Mapping):
            return value
        try:
            return Rates(**value)
        except TypeError:
            raise ValueError(RATES_KEYS) from None


def caller_message(invalid: ValidationError) -> str:
    """The message of the first error: a validator's own text, else the field's message."""
    first = invalid.errors(include_url=False)[0]
    if first["type"] == "value_error":
        return str(first["ctx"]["error"])
    return CALLER_MESSAGES[str(first["loc"][0])](first["input"])


def resolve_model(model: object) -> Model:
    if isinstance(model, Model):
        return model
    if isinstance(model, str) and model.strip():
        from jupyter_agent.model.catalog import get_model  # loads litellm: only when a name is given

        return get_model(model.strip())
    raise ValueError(MODEL_INVALID)


def default_stream_fn() -> StreamFn:
    from jupyter_agent.model.litellm_stream import litellm_stream  # litellm only when it is used

    return litellm_stream


__all__ = [
    "DEFAULT_KEEP_RECENT",
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "MAX_SPEND_INVALID",
    "MODEL_INVALID",
    "RunOptions",
    "STEP_CONTEXT_INVALID",
    "StepOverrides",
    "caller_message",
    "default_stream_fn",
    "positive_integer",
    "resolve_model",
    "unknown_compaction",
]
