"""``CompletionService``: one kernel's inline completions, streamed, cancellable, never in the way.

A request becomes a task on the completions' own thread and loop (``CompletionThread``), never on
the kernel's: the variables its prefix names are described there (statically, no user code runs),
the completion model streams there, and every text delta goes to ``send`` from there as the whole
suggestion so far (a comm's send is safe from any thread). ``start`` and ``cancel`` may be called
from any thread: the comm's callback calls them on the thread the message arrived on, so a
keystroke's request reaches the model without waiting for the kernel's loop. Cancelling a request
(the next keystroke) cancels its task, which closes the stream and so the provider's HTTP
response; a request cancelled before its task started never sends one. A request that arrives
while a cell of the user runs is answered ``skipped`` at once: a completion must never delay it.

Each request's hops are logged at debug level on ``jupyter_agent.completion`` as
``"<request id> <hop>"`` (``started``: on the completion thread, ``prompt``, ``requested``,
``first_text``), with the comm's ``arrived`` on ``jupyter_agent.comm``:
``benchmarks/completion_latency.py`` times them.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from typing import Awaitable, Callable, Literal

from jupyter_agent.features.completion.context import referenced_variables
from jupyter_agent.features.completion.demo import demo_completion
from jupyter_agent.features.completion.prompt import (
    MAX_COMPLETION_TOKENS,
    CompletionInput,
    clean_completion,
    completion_context,
)
from jupyter_agent.features.completion.thread import CompletionThread
from jupyter_agent.model import AssistantMessageEventStream, ErrorEvent, Model, StreamFn, StreamOptions, TextDeltaEvent
from jupyter_agent.tools.data_policy import DataPolicy

Status = Literal["streaming", "done", "cancelled", "error", "skipped"]
USER_CELL_RUNNING = "a cell is running: completions wait until it finished"
# A cell of the user silences the completions at once and cancels them this much later: cancelling
# (closing the stream and its HTTP response, the last message) is a few milliseconds of Python,
# which a short cell like ``1+1`` would otherwise share the interpreter with.
CELL_GRACE = 0.05
# The demo's text arrives in pieces like a model's, so the quick start shows it streaming.
DEMO_PIECE = 8
trace = logging.getLogger("jupyter_agent.completion")


@dataclass(frozen=True)
class CompletionRequest:
    request_id: str
    prefix: str
    suffix: str = ""
    cells_above: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompletionUpdate:
    """What ``send`` gets: the suggestion so far (``text``), then one last update with ``done``."""

    request_id: str
    text: str
    status: Status
    message: str = ""  # why it was skipped or failed
    model: str = ""

    @property
    def done(self) -> bool:
        return self.status != "streaming"


@dataclass(frozen=True)
class CompletionModel:
    model: Model
    stream_fn: StreamFn
    label: str
    is_demo: bool = False
    close: Callable[[], Awaitable[None]] | None = None  # on the completion thread: its HTTP client


class CompletionService:
    """The completions of one kernel; ``start``, ``cancel``, ``cancel_all`` and ``active`` are
    thread-safe, everything else runs on the completion thread."""

    def __init__(
        self,
        namespace: dict[str, object],
        *,
        model: Callable[[], Awaitable[CompletionModel]],  # resolved per request: %config may change it
        policy: Callable[[], DataPolicy],
        user_code_running: Callable[[], bool] = lambda: False,
        thread: CompletionThread | None = None,
    ) -> None:
        self.namespace = namespace
        self._model = model
        self._policy = policy
        self._user_code_running = user_code_running
        self.thread = thread or CompletionThread()
        self._lock = threading.Lock()
        # request id -> its task, or None while the request waits for the thread to start it
        self._requests: dict[str, asyncio.Task[None] | None] = {}

    @property
    def active(self) -> list[str]:
        """Ids of the requests started and not finished yet."""
        with self._lock:
            return [request_id for request_id, task in self._requests.items() if task is None or not task.done()]

    def start(self, request: CompletionRequest, send: Callable[[CompletionUpdate], None]) -> None:
        """Starts ``request``; a newer request of the same frontend replaces it (``cancel`` first)."""
        if self._user_code_running():
            send(CompletionUpdate(request.request_id, "", "skipped", USER_CELL_RUNNING))
            return
        with self._lock:
            self._requests[request.request_id] = None
        self.thread.call(self._begin, request, send)

    def cancel(self, request_id: str) -> bool:
        """Cancels one request: its stream closes (the HTTP response with it) and it ends ``cancelled``."""
        with self._lock:
            if request_id not in self._requests:
                return False
            task = self._requests[request_id]
            if task is None:
                del self._requests[request_id]  # not started yet: _begin finds it gone
                cancelled = True
            else:
                cancelled = not task.done()
        if task is not None and cancelled:
            self.thread.call(task.cancel)
        return cancelled

    def cancel_all(self) -> int:
        """Before a cell of the user runs, and when the extension unloads."""
        with self._lock:
            ids = list(self._requests)
        return sum(self.cancel(request_id) for request_id in ids)

    def make_way(self) -> int:
        """A cell of the user starts: the requests streaming now send nothing more and are
        cancelled ``CELL_GRACE`` later (after a short cell ended); returns how many."""
        with self._lock:
            ids = list(self._requests)
        if ids:

            def cancel_later() -> None:
                asyncio.get_running_loop().call_later(CELL_GRACE, lambda: [self.cancel(request_id) for request_id in ids])

            self.thread.call(cancel_later)
        return len(ids)

    def close(self, cleanup: Callable[[], Awaitable[None]] | None = None) -> None:
        """Cancels every request and stops the completion thread (after ``cleanup`` ran there)."""
        self.cancel_all()
        self.thread.close(cleanup)

    def gather_input(self, request: CompletionRequest) -> CompletionInput:
        """The request's prompt material: the variables its prefix names, described under the policy."""
        variables = referenced_variables(request.prefix, self.namespace, self._policy())
        return CompletionInput(request.prefix, request.suffix, tuple(variables), request.cells_above)

    def _begin(self, request: CompletionRequest, send: Callable[[CompletionUpdate], None]) -> None:
        with self._lock:
            if request.request_id not in self._requests:
                send(CompletionUpdate(request.request_id, "", "cancelled"))  # the next key came first
                return
            trace.debug("%s started", request.request_id)
            task = asyncio.get_running_loop().create_task(self._complete(request, send))
            self._requests[request.request_id] = task

        def forget(_: object) -> None:
            with self._lock:
                if self._requests.get(request.request_id) is task:
                    del self._requests[request.request_id]

        task.add_done_callback(forget)

    async def _complete(self, request: CompletionRequest, reply: Callable[[CompletionUpdate], None]) -> None:
        def send(update: CompletionUpdate) -> None:
            if update.status != "streaming" or not self._user_code_running():
                reply(update)  # while a cell of the user runs, only the end is sent (make_way)

        text, label = "", ""
        try:
            data = self.gather_input(request)
            chosen = await self._model()
            label = chosen.label
            if chosen.is_demo:
                text = await _stream_demo(request.request_id, demo_completion(data), label, send)
            else:
                text = await _stream_model(request.request_id, chosen, data, send)
        except asyncio.CancelledError:
            send(CompletionUpdate(request.request_id, text, "cancelled", model=label))
            raise
        except Exception as error:  # noqa: BLE001 - the frontend shows nothing; the reason travels for the log
            send(CompletionUpdate(request.request_id, "", "error", f"{type(error).__name__}: {error}", model=label))
            return
        send(CompletionUpdate(request.request_id, text, "done", model=label))


async def _stream_model(
    request_id: str, chosen: CompletionModel, data: CompletionInput, send: Callable[[CompletionUpdate], None]
) -> str:
    options = StreamOptions(max_tokens=MAX_COMPLETION_TOKENS, temperature=0.0)
    context = completion_context(data)
    trace.debug("%s prompt", request_id)
    stream = chosen.stream_fn(chosen.model, context, options)
    trace.debug("%s requested", request_id)
    if not isinstance(stream, AssistantMessageEventStream):
        stream = await stream  # a StreamFn may return its stream through an awaitable
    raw, sent = "", ""
    try:
        async for event in stream:
            if isinstance(event, TextDeltaEvent):
                raw += event.delta
                text = clean_completion(raw, data.prefix, data.suffix)
                if text != sent and not _maybe_fence(raw):
                    if not sent:
                        trace.debug("%s first_text", request_id)
                    sent = text
                    send(CompletionUpdate(request_id, text, "streaming", model=chosen.label))
            elif isinstance(event, ErrorEvent):
                raise RuntimeError(event.error.error_message or "the completion model failed")
    finally:
        await stream.aclose()  # closes the provider's response when the request was cancelled
    return clean_completion(raw, data.prefix, data.suffix)


async def _stream_demo(request_id: str, text: str, label: str, send: Callable[[CompletionUpdate], None]) -> str:
    for end in range(DEMO_PIECE, len(text) + DEMO_PIECE, DEMO_PIECE):
        send(CompletionUpdate(request_id, text[:end], "streaming", model=label))
        await asyncio.sleep(0)  # a cancel (the next keystroke) lands between two pieces
    return text


def _maybe_fence(raw: str) -> bool:
    """The answer may be opening a Markdown fence: hold it back until the fence is known."""
    start = raw.lstrip()
    return bool(start) and "```".startswith(start[:3]) and "\n" not in start
