"""One model request: obtain the stream, forward its events, read the final message once."""

from __future__ import annotations

import inspect
from typing import Awaitable, Callable

from jupyter_agent.messages import AssistantMessage
from jupyter_agent.model import (
    STREAM_ENDED_WITHOUT_RESULT,
    AssistantMessageEventStream,
    Context,
    Model,
    ModelInputMetadata,
    StreamFn,
    StreamOptions,
)
from jupyter_agent.loop.abort import AbortSignal, abortable
from jupyter_agent.loop.events import Emitter
from jupyter_agent.loop.types import AgentLoopError, MessageStartEvent

UPDATE_BEFORE_START = "Model stream sent an update before start"
_NOTHING = object()


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
    if inspect.isawaitable(obtained):
        obtained = await abortable(obtained, signal)
    stream = obtained
    started = False
    final_seen = False
    own_stream = isinstance(stream, AssistantMessageEventStream)
    if own_stream:
        signal.add_listener(stream.interrupt_waits)
    try:
        next_event = _event_reader(stream, signal)
        buffered = stream._events if own_stream else None
        while True:
            # Fast path: an event already buffered needs no await (the hot path of streaming).
            if buffered:
                if signal.aborted:
                    raise signal.reason
                event = buffered.popleft()
            else:
                event = await next_event()
                if event is _NOTHING:
                    break
            kind = event.type
            if kind == "done" or kind == "error":
                final_seen = True
                continue
            if kind == "start":
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
    return isinstance(stream, AssistantMessageEventStream) and stream.ended and stream._result is not None


def _event_reader(stream: object, signal: AbortSignal) -> Callable[[], Awaitable[object]]:
    iterator = stream.__aiter__()
    # Our own stream is interrupted by the signal directly (see interrupt_waits); any other
    # async iterator gets a cancellable wait per event.
    own = isinstance(iterator, AssistantMessageEventStream)

    async def read() -> object:
        try:
            if own:
                signal.throw_if_aborted()
                return await iterator.__anext__()
            return await abortable(iterator.__anext__(), signal)
        except StopAsyncIteration:
            return _NOTHING

    return read
