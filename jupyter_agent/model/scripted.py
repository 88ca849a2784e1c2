"""A scripted model: a ``StreamFn`` that plays queued responses as realistic event streams.

It lives in the model layer because it is a provider like any other: the offline demo model of
the notebook uses it; tests and benchmarks import it from ``jupyter_agent.testing.scripted``.

Text, thinking and tool-call arguments arrive in small chunks, usage is estimated from the
context, closing the stream (abort) stops it, and an exhausted script answers with an error
event "No more scripted responses". Tests, benchmarks and the offline demo model use it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence, Union

from jupyter_agent.messages import (
    AssistantMessage,
    Cost,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    fast_copy_assistant,
)
from jupyter_agent.model import (
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    ModelInputMetadata,
    StartEvent,
    StreamOptions,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    start_producer,
)
from jupyter_agent.model.events import AssistantMessageEvent
from jupyter_agent.model.tokens import estimate_message_tokens, estimate_overhead, estimate_tokens

Block = Union[TextContent, ThinkingContent, ToolCall]
NO_MORE_RESPONSES = "No more scripted responses"
_ids = itertools.count(1)


@dataclass
class ScriptedResponse:
    content: list[TextContent | ThinkingContent | ToolCall] = field(default_factory=list)
    stop_reason: StopReason | None = None  # derived: "tool_use" when there are calls, else "stop"
    error_message: str | None = None
    usage: Usage | None = None  # overrides the estimate
    delay: float | None = None  # seconds between chunks; None uses the model's
    hang: bool = False  # stream the content, then wait until aborted
    no_final: bool = False  # end the stream without done/error
    final_only: bool = False  # push no events, only end(result)


Responder = Callable[[Context], Union[ScriptedResponse, str]]


def reply(text: str, **kwargs: Any) -> ScriptedResponse:
    return ScriptedResponse(content=[TextContent(text=text)], **kwargs)


def call(name: str, arguments: dict[str, Any] | None = None, id: str | None = None) -> ToolCall:
    return ToolCall(id=id or f"call_{next(_ids)}", name=name, arguments=arguments or {})


def tool_calls(*calls: ToolCall, text: str | None = None, **kwargs: Any) -> ScriptedResponse:
    content: list[TextContent | ThinkingContent | ToolCall] = [TextContent(text=text)] if text else []
    return ScriptedResponse(content=content + list(calls), **kwargs)


def think(thinking: str, text: str, signature: str | None = None, **kwargs: Any) -> ScriptedResponse:
    return ScriptedResponse(
        content=[ThinkingContent(thinking=thinking, thinking_signature=signature), TextContent(text=text)], **kwargs
    )


def failure(message: str = "Scripted failure", reason: StopReason = "error", **kwargs: Any) -> ScriptedResponse:
    return ScriptedResponse(stop_reason=reason, error_message=message, **kwargs)


def truncated(text: str, *calls: ToolCall) -> ScriptedResponse:
    return ScriptedResponse(content=[TextContent(text=text), *calls], stop_reason="length")


@dataclass
class ScriptedRequest:
    model: Model
    context: Context
    options: StreamOptions | None
    metadata: ModelInputMetadata | None


class ScriptedModel:
    """Call it as a ``StreamFn``. ``requests`` records what each request received."""

    def __init__(
        self,
        responses: Sequence[ScriptedResponse | str | Responder] = (),
        *,
        chunk_size: int = 8,
        delay: float = 0.0,
        provider: str = "scripted",
    ) -> None:
        self.responses: list[ScriptedResponse | str | Responder] = list(responses)
        self.chunk_size = chunk_size
        self.delay = delay
        self.provider = provider
        self.requests: list[ScriptedRequest] = []

    def queue(self, *responses: ScriptedResponse | str | Responder) -> "ScriptedModel":
        self.responses.extend(responses)
        return self

    def model(self, id: str = "scripted-model", **overrides: Any) -> Model:
        return Model(id=id, provider=self.provider, **overrides)

    def __call__(
        self,
        model: Model,
        context: Context,
        options: StreamOptions | None = None,
        metadata: ModelInputMetadata | None = None,
    ) -> AssistantMessageEventStream:
        # Recorded as given: the loop builds a fresh context (copied messages) for every request.
        self.requests.append(ScriptedRequest(model, context, options, metadata))
        response = self._next_response(context)
        if response.final_only:
            stream = AssistantMessageEventStream()
            stream.end(self._final(model, context, response, response.content))
            return stream
        return start_producer(lambda stream: self._produce(stream, model, context, response))

    def _next_response(self, context: Context) -> ScriptedResponse:
        if not self.responses:
            return failure(NO_MORE_RESPONSES)
        response = self.responses.pop(0)
        if callable(response) and not isinstance(response, ScriptedResponse):
            response = response(context)
        return reply(response) if isinstance(response, str) else response

    async def _produce(
        self, stream: AssistantMessageEventStream, model: Model, context: Context, response: ScriptedResponse
    ) -> None:
        delay = self.delay if response.delay is None else response.delay
        partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id)

        async def push(event: AssistantMessageEvent) -> None:
            stream.push(event)
            # Yield like a network read would, so consumers and aborts interleave realistically.
            await asyncio.sleep(delay)

        await push(StartEvent(partial=fast_copy_assistant(partial)))
        for block in response.content:
            index = len(partial.content)
            await self._stream_block(block, index, partial, push)
        if response.hang:
            await asyncio.Event().wait()  # until the consumer closes the stream
        if response.no_final:
            stream.end()
            return
        final = self._final(model, context, response, partial.content)
        reason = final.stop_reason
        if reason == "error" or reason == "aborted":
            stream.push(ErrorEvent(reason=reason, error=final))
        else:
            stream.push(DoneEvent(reason=reason, message=final))

    async def _stream_block(
        self, block: Block, index: int, partial: AssistantMessage, push: Callable[[AssistantMessageEvent], Awaitable[None]]
    ) -> None:
        size = self.chunk_size
        if isinstance(block, ToolCall):
            partial.content.append(ToolCall(id=block.id, name=block.name, arguments={}))
            await push(ToolCallStartEvent(content_index=index, partial=fast_copy_assistant(partial)))
            raw = json.dumps(block.arguments)
            for start in range(0, len(raw), size):
                await push(
                    ToolCallDeltaEvent(content_index=index, delta=raw[start : start + size], partial=fast_copy_assistant(partial))
                )
            partial.content[index] = block.model_copy(deep=True)
            await push(
                ToolCallEndEvent(content_index=index, tool_call=block.model_copy(deep=True), partial=fast_copy_assistant(partial))
            )
            return
        is_text = isinstance(block, TextContent)
        body = block.text if isinstance(block, TextContent) else block.thinking
        start_cls, delta_cls, end_cls = (
            (TextStartEvent, TextDeltaEvent, TextEndEvent)
            if is_text
            else (ThinkingStartEvent, ThinkingDeltaEvent, ThinkingEndEvent)
        )
        partial.content.append(TextContent(text="") if is_text else ThinkingContent(thinking=""))
        await push(start_cls(content_index=index, partial=fast_copy_assistant(partial)))
        for start in range(0, len(body), size):
            piece = body[start : start + size]
            current = partial.content[index]
            if isinstance(current, TextContent):
                current.text += piece
            elif isinstance(current, ThinkingContent):
                current.thinking += piece
            await push(delta_cls(content_index=index, delta=piece, partial=fast_copy_assistant(partial)))
        partial.content[index] = block.model_copy(deep=True)
        await push(end_cls(content_index=index, content=body, partial=fast_copy_assistant(partial)))

    def _final(self, model: Model, context: Context, response: ScriptedResponse, content: list[Block]) -> AssistantMessage:
        has_calls = any(isinstance(block, ToolCall) for block in content)
        stop_reason: StopReason = response.stop_reason or ("tool_use" if has_calls else "stop")
        return AssistantMessage(
            content=[block.model_copy(deep=True) for block in content],
            api=model.api,
            provider=model.provider,
            model=model.id,
            usage=response.usage.model_copy(deep=True) if response.usage else estimate_usage(model, context, content),
            stop_reason=stop_reason,
            error_message=response.error_message,
        )


def estimate_usage(model: Model, context: Context, content: Sequence[Block]) -> Usage:
    """The project's token estimate (``model.tokens``), priced with the model's rates."""
    input_tokens = max(
        1, estimate_tokens(context.messages) + estimate_overhead(context.system_prompt, context.tools, context.step_context)
    )
    output_tokens = max(1, estimate_message_tokens(AssistantMessage(content=list(content))))
    cost_in = input_tokens * model.cost.input / 1e6
    cost_out = output_tokens * model.cost.output / 1e6
    return Usage(
        input=input_tokens,
        output=output_tokens,
        total_tokens=input_tokens + output_tokens,
        cost=Cost(input=cost_in, output=cost_out, total=cost_in + cost_out),
    )
