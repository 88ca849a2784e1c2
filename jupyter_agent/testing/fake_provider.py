"""A fake OpenAI-compatible provider: ``/v1/chat/completions`` streaming scripted SSE responses.

Tests, benchmarks, the browser tests and the offline demo talk to it over real HTTP (litellm with
``model="openai/<name>"`` and ``api_base=fp.api_base``). Standard library only, so it runs in any
process or thread: ``with FakeProvider() as fp: fp.queue(text("Hi"))``.

Responses are queued with the builders below (text, reasoning, tool calls, usage, HTTP errors,
a dropped connection, a malformed chunk, a hang); a *responder* callable of the request body
may stand in for any of them; ``prompt_cache=True`` simulates a provider's prompt cache (see
``prompt_cache``) in each response's usage. A request whose tool messages do not pair with the
calls before them is refused with a 400 worded as OpenAI words it. Every request body is recorded, and so is every client disconnect
(with its ``time.monotonic()``), so a test can assert how soon the server saw an abort.
"""

from __future__ import annotations

import itertools
import json
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Literal, Sequence, Union

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.testing.prompt_cache import PromptCache, with_cache_usage
from jupyter_agent.testing.tool_pairing import pairing_problem

Chunk = Union[dict, str]  # a dict becomes a JSON chunk; a str is sent as a raw (malformed) payload


@dataclass
class FakeResponse:
    chunks: list[Chunk] = field(default_factory=list)
    status: int = 200
    error: dict | None = None  # the JSON body of a non-200 answer
    # "done": finish with [DONE]; "drop": cut the connection; "hang": wait for the client to leave.
    ending: Literal["done", "drop", "hang"] = "done"
    delay: float = 0.0  # seconds before each chunk
    # Called with each chunk's index as it has been written: a benchmark's clock of when the model
    # sent what (its own time to first token, measured rather than assumed from ``delay``).
    on_chunk: Callable[[int], None] | None = None


Responder = Callable[[dict], FakeResponse]


@dataclass
class FakeToolCall:
    name: str
    arguments: str  # the raw JSON text, streamed in ``pieces`` fragments
    id: str
    pieces: int = 3


_call_ids = itertools.count(1)


def _pieces(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _delta(delta: dict, finish_reason: str | None = None) -> dict:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def usage(prompt_tokens: int = 10, completion_tokens: int = 5, cached_tokens: int = 0, cache_write_tokens: int = 0) -> dict:
    """An OpenAI usage object; ``prompt_tokens`` includes cached and cache-write tokens, as litellm reports them."""
    body: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if cached_tokens:
        body["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    if cache_write_tokens:
        body["cache_creation_input_tokens"] = cache_write_tokens
    return body


def _finish(chunks: list[Chunk], finish_reason: str, usage_body: dict | None) -> list[Chunk]:
    chunks.append(_delta({}, finish_reason))
    # Like OpenAI with include_usage: a last chunk with no choices and the usage.
    chunks.append({"choices": [], "usage": usage_body or usage()})
    return chunks


def text(*pieces: str, usage: dict | None = None, finish_reason: str = "stop", delay: float = 0.0) -> FakeResponse:
    chunks: list[Chunk] = [_delta({"role": "assistant", "content": ""})]
    chunks += [_delta({"content": piece}) for piece in pieces]
    return FakeResponse(_finish(chunks, finish_reason, usage), delay=delay)


def reasoning(
    thinking: str | Sequence[str],
    answer: str | Sequence[str] = (),
    *,
    signature: str | None = None,
    redacted: str | None = None,
    usage: dict | None = None,
    delay: float = 0.0,
) -> FakeResponse:
    """Reasoning as ``delta.reasoning_content``; a signature or redacted payload as Anthropic sends them via litellm."""
    chunks: list[Chunk] = [_delta({"role": "assistant", "content": ""})]
    if redacted is not None:
        chunks.append(_delta({"thinking_blocks": [{"type": "redacted_thinking", "data": redacted}]}))
    for piece in _pieces(thinking):
        chunks.append(_delta({"reasoning_content": piece}))
    if signature is not None:
        block = {"type": "thinking", "thinking": "", "signature": signature}
        chunks.append(_delta({"reasoning_content": "", "thinking_blocks": [block]}))
    chunks += [_delta({"content": piece}) for piece in _pieces(answer)]
    return FakeResponse(_finish(chunks, "stop", usage), delay=delay)


def call(name: str, arguments: dict | str | None = None, id: str | None = None, pieces: int = 3) -> FakeToolCall:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return FakeToolCall(name=name, arguments=raw, id=id or f"call_{next(_call_ids)}", pieces=pieces)


def tool_calls(*calls: FakeToolCall, text: str | None = None, usage: dict | None = None, delay: float = 0.0) -> FakeResponse:
    """Optional preamble text, then each call: id and name first, arguments split over chunks."""
    chunks: list[Chunk] = [_delta({"role": "assistant", "content": text or ""})]
    for index, fake in enumerate(calls):
        first = {"index": index, "id": fake.id, "type": "function", "function": {"name": fake.name, "arguments": ""}}
        chunks.append(_delta({"tool_calls": [first]}))
        size = max(1, -(-len(fake.arguments) // max(1, fake.pieces)))
        for start in range(0, len(fake.arguments), size):
            fragment = {"index": index, "function": {"arguments": fake.arguments[start : start + size]}}
            chunks.append(_delta({"tool_calls": [fragment]}))
    return FakeResponse(_finish(chunks, "tool_calls", usage), delay=delay)


def http_error(status: int, message: str, type: str = "invalid_request_error", code: str | None = None) -> FakeResponse:
    return FakeResponse(status=status, error={"error": {"message": message, "type": type, "param": None, "code": code}})


API_KEY_PLACEHOLDER = "{api_key}"  # in an error message: replaced by the key the request carried


def rejected_key(status: int = 401) -> FakeResponse:
    """The provider refuses the key and echoes it whole in the error body, as some do."""
    return http_error(
        status,
        f"Incorrect API key provided: {API_KEY_PLACEHOLDER}. You can find your API key "
        "at https://platform.example/account/api-keys.",
        code="invalid_api_key",
    )


def dropped(*pieces: str, delay: float = 0.0) -> FakeResponse:
    """Streams the pieces, then the connection breaks before the response is complete."""
    return FakeResponse(text(*pieces).chunks[: 1 + len(pieces)], ending="drop", delay=delay)


def malformed(*pieces: str, payload: str = '{"choices": [{"delta": {"content": "oops"') -> FakeResponse:
    """Streams the pieces, then a chunk that is not JSON, then carries on as if nothing happened."""
    good = text(*pieces).chunks
    return FakeResponse(good[: 1 + len(pieces)] + [payload] + good[1 + len(pieces) :])


def hanging(*pieces: str, delay: float = 0.0) -> FakeResponse:
    """Streams the pieces, then sends nothing until the client disconnects (abort tests)."""
    return FakeResponse(text(*pieces).chunks[: 1 + len(pieces)], ending="hang", delay=delay)


class _ClientGone(JupyterAgentError):
    pass


class FakeProvider:
    """Serves on 127.0.0.1 (ephemeral port by default) from a background thread while entered."""

    def __init__(
        self,
        responses: Sequence[FakeResponse | Responder] = (),
        *,
        port: int = 0,
        models: Sequence[str] = ("fake-model",),
        fallback: Responder | None = None,
        prompt_cache: bool = False,
        on_received: Callable[[], None] | None = None,
    ) -> None:
        self._responses: deque = deque(responses)
        # Called as each request's body has been read, before the server parses it: when the client's
        # request was done (a benchmark's clock; parsing a 20 000-message body is the server's work).
        self.on_received = on_received
        # Simulated prompt caching: each response's usage reports what the cache served.
        self.cache: PromptCache | None = PromptCache() if prompt_cache else None
        self._lock = threading.Condition()
        self._port = port
        self.models = list(models)
        # An exhausted script answers 500, so a test that under-scripts fails loudly.
        self.fallback: Responder = fallback or (
            lambda body: http_error(500, "fake provider: no scripted response left", "server_error")
        )
        self.requests: list[dict] = []
        self.request_headers: list[dict[str, str]] = []
        self.disconnects: list[float] = []
        self._server: ThreadingHTTPServer | None = None
        self._stopping = threading.Event()

    # -- scripting ------------------------------------------------------------------------------
    def queue(self, *responses: FakeResponse | Responder) -> "FakeProvider":
        with self._lock:
            self._responses.extend(responses)
        return self

    def _next_response(self, body: dict) -> FakeResponse:
        with self._lock:
            response = self._responses.popleft() if self._responses else self.fallback
        return response(body) if callable(response) else response

    def _record(self, body: dict, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            self._lock.notify_all()

    def _record_disconnect(self) -> None:
        with self._lock:
            self.disconnects.append(time.monotonic())
            self._lock.notify_all()

    def wait_for_disconnect(self, count: int = 1, timeout: float = 5.0) -> float | None:
        """The monotonic time the server saw the ``count``-th client disconnect, or None on timeout."""
        with self._lock:
            self._lock.wait_for(lambda: len(self.disconnects) >= count, timeout)
            return self.disconnects[count - 1] if len(self.disconnects) >= count else None

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeProvider is not running")
        return self._server.server_address[1]

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FakeProvider":
        handler = type("Handler", (_Handler,), {"provider": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._server.daemon_threads = True
        self._stopping.clear()
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-provider", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._stopping.set()
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeProvider":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    provider: FakeProvider
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # a test server should not write to stderr on every request

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": name, "object": "model", "owned_by": "fake-provider"} for name in self.provider.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, http_error(404, f"fake provider: no route {self.path}").error)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length)
        if self.provider.on_received is not None:
            self.provider.on_received()
        try:
            body = json.loads(data or b"{}")
        except ValueError:
            return self._send_json(400, http_error(400, "fake provider: request body is not JSON").error)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._send_json(404, http_error(404, f"fake provider: no route {self.path}").error)
        self.provider._record(body, {key.lower(): value for key, value in self.headers.items()})
        problem = pairing_problem(body.get("messages") or [])
        if problem is not None:
            return self._send_json(400, http_error(400, problem).error)
        response = self.provider._next_response(body)
        if self.provider.cache is not None and response.status == 200:
            response = replace(response, chunks=with_cache_usage(response.chunks, self.provider.cache.serve(body)))
        if response.status != 200:
            return self._send_json(response.status, self._echo_key(response.error or {}))
        if not body.get("stream"):
            return self._send_json(400, http_error(400, "fake provider: only stream=true is supported").error)
        try:
            self._stream(response, str(body.get("model", "fake-model")))
        except _ClientGone:
            self.provider._record_disconnect()
        finally:
            self.close_connection = True

    def _echo_key(self, payload: dict[str, Any] | None) -> dict[str, Any] | None:
        text = json.dumps(payload)
        if API_KEY_PLACEHOLDER not in text:
            return payload
        scheme, _, key = (self.headers.get("Authorization") or "").partition(" ")
        echoed: dict[str, Any] = json.loads(text.replace(API_KEY_PLACEHOLDER, json.dumps(key or scheme)[1:-1]))
        return echoed

    def _send_json(self, status: int, payload: dict[str, Any] | None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _stream(self, response: FakeResponse, model: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        envelope = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        for index, chunk in enumerate(response.chunks):
            if response.delay:
                self._wait(response.delay)
            payload = chunk if isinstance(chunk, str) else json.dumps({**envelope, **chunk})
            self._write_chunk(f"data: {payload}\n\n".encode())
            if response.on_chunk is not None:
                response.on_chunk(index)
        if response.ending == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)  # no terminating chunk: the body is cut short
        elif response.ending == "hang":
            self._wait(None)
        else:
            self._write_chunk(b"data: [DONE]\n\n")
            self._write(b"0\r\n\r\n")

    def _write_chunk(self, data: bytes) -> None:
        self._write(b"%x\r\n%s\r\n" % (len(data), data))

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
        except OSError as error:  # broken pipe, reset: the client went away
            raise _ClientGone() from error

    def _wait(self, seconds: float | None) -> None:
        """Sleeps, but returns at once (raising _ClientGone) when the client closes the connection."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while not self.provider._stopping.is_set():
            remaining = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], remaining)
            # The request was read whole, so a readable socket means EOF or reset: the client left.
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        raise _ClientGone()
                except OSError as error:
                    raise _ClientGone() from error


def response_from_json(spec: dict) -> FakeResponse:
    """One scripted response of a CLI script file (see ``main``)."""
    options = {key: spec[key] for key in ("usage", "delay") if key in spec}
    if "error" in spec:
        return http_error(int(spec["error"]), spec.get("message", "fake provider error"))
    if "tool_calls" in spec:
        calls = [call(item["name"], item.get("arguments", {}), item.get("id")) for item in spec["tool_calls"]]
        return tool_calls(*calls, text=spec.get("text"), **options)
    if "reasoning" in spec:
        return reasoning(spec["reasoning"], spec.get("text", ()), **options)
    return text(*_pieces(spec.get("text", "")), **options)


def echo_responder(body: dict) -> FakeResponse:
    """Answers with the last user message, word by word: the demo's fallback."""
    content = next((m.get("content") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    if isinstance(content, list):
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    words = f"You said: {content}".split(" ")
    return text(*[word + " " for word in words[:-1]], words[-1], delay=0.02)


if __name__ == "__main__":
    from jupyter_agent.testing.fake_provider_cli import main

    main()
