"""``run_agent_loop``: user input → model → tools → model until the model finishes.

The loop is the only writer of ``history`` during a run. It runs one step (a model request, then its tool calls) after another, writes history,
orders events and pairs every tool call it could not run. Retry, parallel tools, queue storage
and compaction belong to hosts, through the four callbacks.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable

from jupyter_agent.loop.abort import AbortController, AbortSignal, RunCancelled, cancelled_details
from jupyter_agent.loop.events import Emitter
from jupyter_agent.loop.execute_tool import describe_exception, error_result, execute_tool
from jupyter_agent.loop.normalize_input import build_model_input
from jupyter_agent.loop.request import RequestSettings, snapshot_turn
from jupyter_agent.loop.stream_response import stream_model_response
from jupyter_agent.loop.types import (
    AgentLoopError,
    AgentLoopOptions,
    EventListener,
    MessageEndEvent,
    MessageStartEvent,
    ResponseTruncated,
    SteeringFn,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnDecision,
)
from jupyter_agent.loop.validate_input import validate_loop_input, validate_user_content
from jupyter_agent.messages import AssistantMessage, Message, ToolCall, UserContent, UserMessage, copy_json, copy_message
from jupyter_agent.model import Context

TRUNCATED = "Model response was truncated (length)"


def turns_exhausted(max_turns: int) -> str:
    return f"Maximum model turns reached: {max_turns}"


async def run_agent_loop(
    content: UserContent | None,
    history: list[Message],
    options: AgentLoopOptions,
    on_event: EventListener | None = None,
    signal: AbortSignal | None = None,
) -> AssistantMessage:
    signal = signal or AbortController().signal
    user_message = validate_loop_input(content, history, options)
    signal.throw_if_aborted()
    emit = Emitter(on_event)
    if user_message is not None:
        await _append_user(user_message, history, emit)
    turns = 0
    first_request = True
    while True:
        settings = RequestSettings.resolve(options, await _call(options.prepare_request, signal))
        if first_request:
            first_request = False
            await _deliver(options.get_steering_messages, history, emit, signal, options)
        if options.max_turns is not None and turns >= options.max_turns:
            raise AgentLoopError(turns_exhausted(options.max_turns))
        turns += 1
        messages, metadata = build_model_input(history, settings.model)
        # The messages are validated values: validating a long session's thousands again costs
        # milliseconds a step, so only the rest is validated.
        context = Context(
            system_prompt=settings.system_prompt, tools=settings.tool_specs, step_context=settings.step_context
        ).model_copy(update={"messages": messages})
        message = await stream_model_response(
            settings.stream_fn, settings.model, context, settings.stream_options, metadata, signal, emit
        )
        try:
            history.append(message)
            await emit.message(MessageEndEvent, message)
            _reject_stop_reason(message)
            await _run_tool_batch(message.tool_calls, settings, history, emit, signal)
        except BaseException as failure:
            await _pair_unanswered(message, history, failure, emit)
            raise
        decision = await _call(options.finish_turn, signal, snapshot_turn(message, history))
        if decision == "end" or (isinstance(decision, TurnDecision) and decision.end):
            _replace_history(decision, history)
            return copy_message(message)
        _replace_history(decision, history)
        has_calls = bool(message.tool_calls)
        if options.max_turns is not None and turns >= options.max_turns:
            # The budget wins: no queued input is consumed; unfinished tool work is refused.
            if has_calls:
                raise AgentLoopError(turns_exhausted(options.max_turns))
            return copy_message(message)
        if await _deliver(options.get_steering_messages, history, emit, signal, options) or has_calls:
            continue
        if not await _deliver(options.get_follow_up_messages, history, emit, signal, options):
            return copy_message(message)


def _reject_stop_reason(message: AssistantMessage) -> None:
    if message.stop_reason in ("error", "aborted"):
        raise AgentLoopError(message.error_message or f"Model response ended with {message.stop_reason}")
    if message.stop_reason == "length":
        raise ResponseTruncated(TRUNCATED)


async def _run_tool_batch(
    calls: list[ToolCall], settings: RequestSettings, history: list[Message], emit: Emitter, signal: AbortSignal
) -> None:
    for call in calls:
        signal.throw_if_aborted()
        await emit(ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=copy_json(call.arguments)))
        result = await execute_tool(call, settings.tools_by_name, signal)
        # History first: a failing listener must not leave the call unanswered.
        history.append(result)
        if emit.active:
            await emit(
                ToolExecutionEndEvent(
                    tool_call_id=call.id, tool_name=call.name, result=result.model_copy(deep=True), is_error=result.is_error
                )
            )
            await emit.message(MessageStartEvent, result)
            await emit.message(MessageEndEvent, result)


async def _pair_unanswered(message: AssistantMessage, history: list[Message], failure: BaseException, emit: Emitter) -> None:
    """Gives every call of ``message`` without a result an error result carrying the failure."""
    if message.stop_reason in ("error", "aborted"):
        return  # replay drops such assistants, and their calls with them
    # Only results after this message answer it: an earlier turn may have used the same call id.
    start = next((i for i in range(len(history) - 1, -1, -1) if history[i] is message), -1)
    answered = {m.tool_call_id for m in history[start + 1 :] if m.role == "tool_result"}
    # Stopped (Stop, Interrupt, a cancelled task) rather than failed: the views say "cancelled".
    cancelled = isinstance(failure, (asyncio.CancelledError, RunCancelled))
    if isinstance(failure, asyncio.CancelledError):
        text = str(RunCancelled())
    elif isinstance(failure, ResponseTruncated):
        text = None
    else:
        text = describe_exception(failure)
    for call in message.tool_calls:
        if call.id in answered:
            continue
        reason = text or f'Tool call "{call.name}" was not executed: the response hit the output token limit.'
        result = error_result(call, reason)
        if cancelled:
            result.details = cancelled_details()
        history.append(result)
        try:
            await emit.message(MessageStartEvent, result)
            await emit.message(MessageEndEvent, result)
        except Exception:  # noqa: BLE001 - the original failure is what the caller must see
            pass


async def _append_user(message: UserMessage, history: list[Message], emit: Emitter) -> None:
    history.append(message)
    await emit.message(MessageStartEvent, message)
    await emit.message(MessageEndEvent, message)


async def _deliver(
    poll: SteeringFn | None, history: list[Message], emit: Emitter, signal: AbortSignal, options: AgentLoopOptions
) -> bool:
    """Appends each queued input as a user message; returns whether any arrived."""
    items = await _call(poll, signal)
    if not items:
        return False
    for item in items:
        content = validate_user_content(item, options.model.accepts_images, options.model.id)
        await _append_user(UserMessage(content=content), history, emit)
    return True


async def _call(callback: Callable[..., Any] | None, signal: AbortSignal, *args: Any) -> Any:
    if callback is None:
        return None
    outcome = callback(*args, signal)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome


def _replace_history(decision: object, history: list[Message]) -> None:
    if isinstance(decision, TurnDecision) and decision.history is not None:
        history[:] = [message.model_copy(deep=True) for message in decision.history]
