"""One model request: obtain the stream, forward its events, read the final message once."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable
from typing import Awaitable, Callable

from jupyter_agent.loop.abort import AbortSignal, abortable
from jupyter_agent.loop.events import Emitter
from jupyter_agent.loop.types import AgentLoopError, MessageStartEvent
from jupyter_agent.messages import AssistantMessage
from jupyter_agent.model import (
    STREAM_ENDED_WITHOUT_RESULT,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    ModelInputMetadata,
    StartEvent,
    StreamFn,
    StreamOptions,
)

UPDATE_BEFORE_START = "Model stream sent an update before start"


async def stream_model_response(
    stream_fn: StreamFn,
    model: Model,
    context: Context,
    options: StreamOptions | None,
    metadata: ModelInputMetadata,
    signal: AbortSignal,
    emit: Emitter,
) -> AssistantMessage:
    """Returns the final assistant message (not yet in history); raises on a broken stream."""
    obtained = stream_fn(model, context, options, metadata)
    stream = await abortable(obtained, signal) if inspect.isawaitable(obtained) else obtained
    started = False
    final_seen = False
    own_stream = isinstance(stream, AssistantMessageEventStream)
    if own_stream:
        signal.add_listener(stream.interrupt_waits)
    try:
        next_event = _event_reader(stream, signal)
        buffered = stream.buffered if own_stream else None
        while True:
            # Fast path: an event already buffered needs no await (the hot path of streaming).
            event: AssistantMessageEvent
            if buffered:
                if signal.reason is not None:
                    raise signal.reason
                event = buffered.popleft()
            else:
                read = await next_event()
                if read is None:
                    break
                event = read
            if isinstance(event, (DoneEvent, ErrorEvent)):
                final_seen = True
                continue
            if isinstance(event, StartEvent):
                started = True
                await emit.message(MessageStartEvent, event.partial)
                continue
            if not started:
                raise AgentLoopError(UPDATE_BEFORE_START)
            await emit.update(event)
        if not final_seen and not _has_result(stream):
            raise AgentLoopError(STREAM_ENDED_WITHOUT_RESULT)
        message = await (stream.result() if own_stream else abortable(stream.result(), signal))
    finally:
        if own_stream:
            signal.remove_listener(stream.interrupt_waits)
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    if not started:
        # A stream that only supplies a final result still gets its message_start.
        await emit.message(MessageStartEvent, message)
    return message


def _has_result(stream: object) -> bool:
    return isinstance(stream, AssistantMessageEventStream) and stream.has_result


def _event_reader(
    stream: AsyncIterable[AssistantMessageEvent], signal: AbortSignal
) -> Callable[[], Awaitable[AssistantMessageEvent | None]]:
    iterator = stream.__aiter__()
    # Our own stream is interrupted by the signal directly (see interrupt_waits); any other
    # async iterator gets a cancellable wait per event.
    own = isinstance(iterator, AssistantMessageEventStream)

    async def read() -> AssistantMessageEvent | None:
        try:
            if own:
                signal.throw_if_aborted()
                return await iterator.__anext__()
            return await abortable(iterator.__anext__(), signal)
        except StopAsyncIteration:
            return None  # the stream ended

    return read
