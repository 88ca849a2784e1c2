"""``litellm_stream``: the default ``StreamFn``, every provider through ``litellm.acompletion``.

The request is built synchronously (a malformed context is the caller's bug and raises here);
the response is read by a producer task. Closing the returned stream (the loop does on abort)
cancels that task, which closes the HTTP response at once and ends the stream ``aborted``.
Provider failures end it with an ``error`` event whose message names the provider and the cause.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any

from jupyter_agent.messages import AssistantMessage, Message, PrefixCache
from jupyter_agent.model.event_stream import AssistantMessageEventStream, start_producer
from jupyter_agent.model.idle_timeout import IdleTimeout, idle_timeout_seconds, no_data_message
from jupyter_agent.model.litellm_chunks import ChunkAssembler
from jupyter_agent.model.litellm_convert import build_request, to_litellm_messages
from jupyter_agent.model.litellm_errors import describe_error, is_missing_key_failure, missing_api_keys, no_api_key
from jupyter_agent.model.litellm_loader import litellm_module, litellm_module_sync, preload_litellm
from jupyter_agent.model.litellm_usage import usage_from_litellm
from jupyter_agent.model.secrets import remember_secret
from jupyter_agent.model.types import Context, Model, ModelInputMetadata, StreamOptions

REQUEST_ABORTED = "Request aborted"
YIELD_INTERVAL = 0.002  # seconds: far below what a reader notices, rare enough to cost nothing


def litellm_stream(
    model: Model,
    context: Context,
    options: StreamOptions | None = None,
    metadata: ModelInputMetadata | None = None,  # origins are for hosts; nothing goes to the provider
) -> AssistantMessageEventStream:
    if options is not None and options.api_key:
        remember_secret("api_key", options.api_key)  # a provider may echo it in an error body
    request = build_request(model, context, options)
    idle_seconds = idle_timeout_seconds(options.idle_timeout if options else None)

    taken_ids = _taken_call_ids(context.messages)

    async def produce(stream: AssistantMessageEventStream) -> None:
        await _produce(stream, model, request, taken_ids, idle_seconds)

    return start_producer(produce)


# Where litellm keeps callbacks: a logging integration the user set up must never see a mocked call.
_CALLBACK_LISTS = (
    "callbacks",
    "success_callback",
    "failure_callback",
    "input_callback",
    "service_callback",
    "audit_log_callbacks",
    "_async_success_callback",
    "_async_failure_callback",
    "_async_input_callback",
)


def warm_first_completion(model_name: str | None) -> bool:
    """Runs litellm's first completion offline: a mocked, streamed answer, no request leaves the
    kernel. litellm imports some 60 modules on its first completion (its proxy's types, its logging,
    the stream wrapper): 0.3–0.7 s the first turn's request waited for. True if it ran; skipped
    while a litellm callback is set. Called from the warm-up thread (blocking)."""
    litellm = litellm_module_sync()
    if any(getattr(litellm, name, None) for name in _CALLBACK_LISTS):
        return False
    response = litellm.completion(
        model=model_name or "openai/gpt-4o-mini",
        messages=[{"role": "user", "content": "warm-up"}],
        mock_response="ok",
        stream=True,
    )
    for _chunk in response:
        pass
    # And its first model lookup, which imports every provider's configuration (~50 ms the first
    # turn's resolution of a model litellm maps would wait for).
    litellm.get_supported_openai_params(model="gpt-4o-mini", custom_llm_provider="openai")
    return True


def prepare_history(model: Model, messages: Sequence[Message]) -> None:
    """Makes what ``litellm_stream`` derives from ``messages`` (a request's, gated) before a request
    sends them: their request form and the tool call ids they take. Kept per message and list, so
    the request that sends them (and more) resumes there; a long session's warm-up makes its first
    request's ahead, in another thread (``notebook/request_ahead``)."""
    to_litellm_messages(Context().model_copy(update={"messages": messages}), model)
    _taken_call_ids(messages)


# The ids a new tool call must not reuse: the request's, gathered once per history as it grows.
_TAKEN_IDS: PrefixCache[set[str]] = PrefixCache()


def _taken_call_ids(messages: Sequence[Message]) -> frozenset[str]:
    start, taken = _TAKEN_IDS.resume(None, messages)
    taken = taken if taken is not None else set()
    taken.update(call.id for message in messages[start:] if isinstance(message, AssistantMessage) for call in message.tool_calls)
    _TAKEN_IDS.keep(None, messages, taken)
    return frozenset(taken)  # the cache's set grows with the next request


async def _produce(
    stream: AssistantMessageEventStream, model: Model, request: dict[str, Any], taken_ids: frozenset[str], idle_seconds: float
) -> None:
    partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
    assembler = ChunkAssembler(partial, stream.push, taken_ids)
    response = None
    idle: IdleTimeout | None = None
    try:
        litellm = await litellm_module()
        # The wait for the response's start counts as silence too, the import of litellm does not.
        async with IdleTimeout(idle_seconds) as idle:
            response = await litellm.acompletion(**request)
            idle.touch()
            assembler.start()  # the provider accepted the request: the response has begun
            last_yield, blocks = 0.0, 0
            async for chunk in response:
                idle.touch()
                assembler.add(chunk)
                # Buffered chunks are read without suspending; yielding now and then (and when a
                # block opens, so its first delta shows at once) lets the consumer see events as
                # they come instead of in one burst at the end.
                now = time.perf_counter()
                if now - last_yield >= YIELD_INTERVAL or len(assembler.partial.content) != blocks:
                    last_yield, blocks = now, len(assembler.partial.content)
                    await asyncio.sleep(0)
        stream.push(assembler.finish(usage_from_litellm(assembler.raw_usage, model)))
    except asyncio.CancelledError:
        stream.push(assembler.failure("aborted", REQUEST_ABORTED))
        raise
    except Exception as error:  # noqa: BLE001 - every provider failure becomes an error event
        if idle is not None and idle.expired and isinstance(error, TimeoutError):
            stream.push(assembler.failure("error", no_data_message(model.provider, idle_seconds)))
        else:
            stream.push(assembler.failure("error", _describe(error, model, request, assembler.started)))
    finally:
        if response is not None:
            # Leaving the iteration alone keeps the HTTP stream open until garbage collection.
            await response.aclose()


def _describe(error: Exception, model: Model, request: dict[str, Any], started: bool) -> str:
    # Without a key the SDK fails before any request, in words litellm labels "server error (500)".
    if not started and not request.get("api_key") and is_missing_key_failure(error):
        litellm = sys.modules.get("litellm")
        missing = missing_api_keys(litellm, str(request.get("model", ""))) if litellm is not None else []
        if missing:
            return no_api_key(model.provider, missing)
    return describe_error(error, model.provider, mid_stream=started)


__all__ = ["REQUEST_ABORTED", "litellm_stream", "preload_litellm", "prepare_history", "warm_first_completion"]
