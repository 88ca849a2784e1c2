"""``run_agent``'s options: validation with exact messages, defaults, model resolution.

Every mistake of the caller is a ``ValueError`` raised by ``run_agent`` itself, before a task
starts, so it surfaces where the call was made.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from jupyter_agent.messages import Message, UserContent, copy_message, message_from_json
from jupyter_agent.model import Model, StreamFn, StreamOptions
from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.loop.validate_input import validate_user_content
from jupyter_agent.runtime.compaction import COMPACTION_MODES, CompactionMode
from jupyter_agent.runtime.permissions import PermissionPolicy
from jupyter_agent.runtime.spend import Rates
from jupyter_agent.runtime.window import DEFAULT_COMPACT_FRACTION

# One model response; long enough for a full file rewrite, short of most models' output cap.
DEFAULT_MAX_OUTPUT_TOKENS = 16_384
# The last few exchanges carry the working state; older ones are what a summary is for.
DEFAULT_KEEP_RECENT = 8


def positive_integer(name: str) -> str:
    return f"{name} must be a positive integer"


def unknown_compaction(mode: object) -> str:
    return f'Unknown compaction mode: {mode!r} (expected "model", "truncate" or "off")'


MAX_SPEND_INVALID = "max_spend_usd must be a positive number"
MODEL_INVALID = "model must be a Model or a model name"


@dataclass
class StepOverrides:
    """What ``prepare_step`` may change for one step; ``None`` keeps the run's option."""

    tools: Sequence[str] | None = None  # names: a subset of the run's tools
    tool_choice: str | dict[str, Any] | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    system: str | None = None
    model: Model | str | None = None


@dataclass
class RunOptions:
    model: Model
    prompt: UserContent
    system: str | None
    tools: tuple[AgentTool, ...]
    messages: list[Message]
    stream_fn: StreamFn
    max_steps: int | None
    max_output_tokens: int
    window_tokens: int  # max_context_tokens, or the model's window
    max_spend_usd: float | None
    rates: Rates | None
    compact_at_tokens: int
    compaction: CompactionMode
    compact_keep_recent: int
    prepare_step: Callable | None
    should_stop: Callable | None
    should_continue: Callable | None
    permissions: PermissionPolicy | None
    signal: AbortSignal | None
    stream_options: StreamOptions | None


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


def build_options(
    model, prompt, system, tools, messages, stream_fn, max_steps, max_output_tokens,
    max_context_tokens, max_spend_usd, rates, compact_at_tokens, compaction, compact_keep_recent,
    prepare_step, should_stop, should_continue, permissions, signal, stream_options,
) -> RunOptions:
    _check_positive_int("max_steps", max_steps, optional=True)
    _check_positive_int("max_output_tokens", max_output_tokens)
    _check_positive_int("max_context_tokens", max_context_tokens, optional=True)
    _check_positive_int("compact_at_tokens", compact_at_tokens, optional=True)
    _check_positive_int("compact_keep_recent", compact_keep_recent)
    if max_spend_usd is not None and not _positive_number(max_spend_usd):
        raise ValueError(MAX_SPEND_INVALID)
    if compaction not in COMPACTION_MODES:
        raise ValueError(unknown_compaction(compaction))
    if permissions is not None and not isinstance(permissions, PermissionPolicy):
        raise ValueError("permissions must be a PermissionPolicy or None")
    if signal is not None and not isinstance(signal, AbortSignal):
        raise ValueError("signal must be an AbortSignal or None")
    if stream_options is not None and not isinstance(stream_options, StreamOptions):
        raise ValueError("stream_options must be a StreamOptions or None")
    if system is not None and not isinstance(system, str):
        raise ValueError("system must be a string or None")
    for name, hook in (("prepare_step", prepare_step), ("should_stop", should_stop), ("should_continue", should_continue)):
        if hook is not None and not callable(hook):
            raise ValueError(f"{name} must be callable or None")
    if stream_fn is not None and not callable(stream_fn):
        raise ValueError("stream_fn must be callable or None")
    resolved = resolve_model(model)
    content = validate_user_content(prompt, resolved.accepts_images, resolved.id)
    window = max_context_tokens or resolved.context_window
    return RunOptions(
        model=resolved, prompt=content, system=system, tools=_check_tools(tools),
        messages=_copy_messages(messages), stream_fn=stream_fn or default_stream_fn(),
        max_steps=max_steps, max_output_tokens=max_output_tokens, window_tokens=window,
        max_spend_usd=max_spend_usd, rates=_check_rates(rates),
        compact_at_tokens=compact_at_tokens or int(window * DEFAULT_COMPACT_FRACTION),
        compaction=compaction, compact_keep_recent=compact_keep_recent, prepare_step=prepare_step,
        should_stop=should_stop, should_continue=should_continue, permissions=permissions,
        signal=signal, stream_options=stream_options,
    )


def _check_positive_int(name: str, value: object, optional: bool = False) -> None:
    if value is None and optional:
        return
    # bool is an int subclass; True must not mean "one".
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(positive_integer(name))


def _positive_number(value: object) -> bool:
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool)
        and math.isfinite(value) and value > 0
    )


def _check_rates(rates: object) -> Rates | None:
    if rates is None or isinstance(rates, Rates):
        return rates
    if isinstance(rates, Mapping):
        try:
            return Rates(**rates)
        except TypeError:
            raise ValueError("rates accepts input, output, cache_read and cache_write") from None
    raise ValueError("rates must be a Rates, a mapping or None")


def _check_tools(tools: object) -> tuple[AgentTool, ...]:
    checked = tuple(tools or ())
    names: set[str] = set()
    for tool in checked:
        if not isinstance(tool, AgentTool):
            raise ValueError(f"tools must be AgentTool instances, got {type(tool).__name__}")
        if tool.name in names:
            raise ValueError(f"Duplicate tool name: {tool.name}")
        names.add(tool.name)
    return checked


def _copy_messages(messages: object) -> list[Message]:
    copies = []
    for message in messages or ():
        if isinstance(message, Mapping):
            copies.append(message_from_json(dict(message)))
        elif getattr(message, "role", None) in ("user", "assistant", "tool_result"):
            copies.append(copy_message(message))
        else:
            raise ValueError(f"messages must be Message objects, got {type(message).__name__}")
    return copies
