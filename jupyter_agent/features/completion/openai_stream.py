"""``OpenAICompatibleStream``: a completion's request as one streaming POST, without litellm.

A completion is the simplest request there is: a system prompt, one user message, text back, no
tools, no history, no images. litellm's generality costs ~20 ms of Python before every request
(its parameter mapping, logging objects, callbacks; ``benchmarks/completion_latency.py`` times
the hop), more than everything else on the kernel's side of a keystroke together. For an
OpenAI-compatible endpoint named by ``api_base`` (a local vLLM, Ollama's ``/v1``, LM Studio, a
LiteLLM proxy, the fake provider) the request is a documented JSON body and the answer a
documented server-sent event stream, so it is sent here with httpx, over a connection kept open
between keystrokes (no TCP or TLS handshake per request).

Where this is *not* used, litellm is (``notebook/completion.py`` decides): OpenAI's own API (its
reasoning models want ``max_completion_tokens`` and no temperature, which litellm maps), Azure,
Anthropic, Gemini and every other provider, and models registered with a stream function of
their own. The request carries what the completion needs and nothing provider-specific:
``model``, ``messages``, ``stream``, ``max_tokens``, ``temperature``.

It is a ``StreamFn``, so the privacy gate and the configured credentials wrap it as they wrap
litellm's. Cancelling (closing the stream) closes the HTTP response at once: the server sees the
connection go. One instance keeps one ``httpx.AsyncClient``, made on the loop of its first
request (the completion thread's) and closed there with ``aclose``.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import TYPE_CHECKING

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.messages import AssistantMessage, JsonObject, JsonValue, TextContent
from jupyter_agent.model import (
    AssistantMessageEventStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
)
from jupyter_agent.model.event_stream import start_producer
from jupyter_agent.model.idle_timeout import idle_timeout_seconds, no_data_message
from jupyter_agent.model.secrets import redact_secrets, remember_secret
from jupyter_agent.model.types import ModelInputMetadata

if TYPE_CHECKING:
    import httpx

API = "openai-compatible"
USER_AGENT = "jupyter-agent-completion"  # tells a server's log (and a test) which path sent it
CONNECT_TIMEOUT = 10.0
ERROR_BODY_CHARS = 500  # an error page may be long; its first lines say what went wrong
_DATA = "data:"


class OpenAICompatibleStream:
    """A ``StreamFn`` for ``model`` at an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None  # bound to the loop it was made on
        self._loop: asyncio.AbstractEventLoop | None = None

    def __call__(
        self,
        model: Model,
        context: Context,
        options: StreamOptions | None = None,
        metadata: ModelInputMetadata | None = None,
    ) -> AssistantMessageEventStream:
        options = options or StreamOptions()
        base = options.api_base or model.base_url
        if not base:
            raise ValueError("an OpenAI-compatible completion needs an api_base")
        if options.api_key:
            remember_secret("api_key", options.api_key)  # a server may echo it in an error body
        body = request_body(model, context, options)
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream", "User-Agent": USER_AGENT}
        key = options.api_key or os.environ.get("OPENAI_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = base.rstrip("/") + "/chat/completions"
        idle = idle_timeout_seconds(options.idle_timeout)
        content = json.dumps(body).encode()

        async def produce(stream: AssistantMessageEventStream) -> None:
            await self._produce(stream, model, url, headers, content, idle)

        return start_producer(produce)

    async def aclose(self) -> None:
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.aclose()

    def _http(self) -> httpx.AsyncClient:
        import httpx

        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # A client's connections belong to the loop they were opened on.
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(CONNECT_TIMEOUT), trust_env=False)
            self._loop = loop
        return self._client

    async def _produce(
        self, stream: AssistantMessageEventStream, model: Model, url: str, headers: dict[str, str], content: bytes, idle: float
    ) -> None:
        import httpx

        partial = AssistantMessage(api=API, provider=model.provider, model=model.id)
        text = TextContent(text="")
        reason = "stop"
        try:
            timeout = httpx.Timeout(CONNECT_TIMEOUT, read=idle)
            async with self._http().stream("POST", url, headers=headers, content=content, timeout=timeout) as response:
                if response.status_code != 200:
                    detail = (await response.aread()).decode(errors="replace")
                    raise _HTTPError(f"{model.provider}: HTTP {response.status_code} from {url}: {_error_text(detail)}")
                stream.push(StartEvent(partial=partial))
                async for line in response.aiter_lines():
                    if not line.startswith(_DATA):
                        continue  # comments, event names and the blank lines between events
                    payload = line[len(_DATA) :].strip()
                    if payload == "[DONE]":
                        break
                    chunk = json.loads(payload)
                    if chunk.get("error"):
                        raise _HTTPError(f"{model.provider}: {_error_text(json.dumps(chunk))}")
                    for choice in chunk.get("choices") or []:
                        delta = (choice.get("delta") or {}).get("content")
                        if delta:
                            if not partial.content:
                                partial.content.append(text)
                                stream.push(TextStartEvent(content_index=0, partial=partial))
                            text.text += delta
                            stream.push(TextDeltaEvent(content_index=0, delta=delta, partial=partial))
                        if choice.get("finish_reason") == "length":
                            reason = "length"
            if partial.content:
                stream.push(TextEndEvent(content_index=0, content=text.text, partial=partial))
            partial.stop_reason = reason  # type: ignore[assignment]
            stream.push(DoneEvent(reason=reason, message=partial))  # type: ignore[arg-type]
        except asyncio.CancelledError:
            stream.push(ErrorEvent(reason="aborted", error=_failed(partial, "aborted", "Request aborted")))
            raise
        except httpx.ReadTimeout:
            stream.push(ErrorEvent(reason="error", error=_failed(partial, "error", no_data_message(model.provider, idle))))
        except (_HTTPError, httpx.HTTPError, ValueError) as error:
            message = str(error) if isinstance(error, _HTTPError) else f"{model.provider}: {type(error).__name__}: {error}"
            stream.push(ErrorEvent(reason="error", error=_failed(partial, "error", redact_secrets(message))))


def request_body(model: Model, context: Context, options: StreamOptions) -> JsonObject:
    """The JSON body: the system prompt and the user messages' text, streamed."""
    messages: list[JsonValue] = [{"role": "system", "content": context.system_prompt}] if context.system_prompt else []
    for message in context.messages:
        content = message.content
        if not isinstance(content, str):
            content = "\n".join(block.text for block in content if isinstance(block, TextContent))
        messages.append({"role": message.role, "content": content})
    # The endpoint knows the model by its own name: "openai/llama3" is routing, "llama3" the model.
    name = model.id.removeprefix(f"{model.provider}/")
    body: JsonObject = {"model": name, "messages": messages, "stream": True}
    if options.max_tokens is not None:
        body["max_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    body.update(options.extra)
    return body


class _HTTPError(JupyterAgentError):
    pass


def _error_text(detail: str) -> str:
    try:
        parsed = json.loads(detail)
        message = parsed.get("error", {}).get("message") if isinstance(parsed, dict) else None
        if isinstance(message, str) and message:
            return message
    except ValueError:
        pass
    return detail[:ERROR_BODY_CHARS].strip()


def _failed(partial: AssistantMessage, reason: str, message: str) -> AssistantMessage:
    return partial.model_copy(update={"stop_reason": reason, "error_message": message})


__all__ = ["API", "USER_AGENT", "OpenAICompatibleStream", "request_body"]
