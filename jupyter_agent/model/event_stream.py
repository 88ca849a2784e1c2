"""``AssistantMessageEventStream``: a push queue of stream events with an async iterator.

A producer (a provider adapter, the scripted model) pushes events; the loop iterates them and
then reads ``result()`` — the final message of the same request, never a second request.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Awaitable, Callable, Protocol, Union

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.messages import AssistantMessage
from jupyter_agent.model.events import AssistantMessageEvent, DoneEvent, ErrorEvent
from jupyter_agent.model.types import Context, Model, ModelInputMetadata, StreamOptions
from jupyter_agent.model.waiters import Waiters

STREAM_ENDED_WITHOUT_RESULT = "Model stream ended without a final response"


class StreamEndedWithoutResult(RuntimeError, JupyterAgentError):
    pass


class AssistantMessageEventStream:
    def __init__(self) -> None:
        self._events: deque[AssistantMessageEvent] = deque()
        self._ended = False
        self._result: AssistantMessage | None = None
        self._waiters = Waiters()
        self._close_callbacks: list[Callable[[], None]] = []
        self._interrupted: BaseException | None = None
        self.closed = False

    # -- producer side ------------------------------------------------------------------------
    def push(self, event: AssistantMessageEvent) -> None:
        # Events after the end are ignored: a producer racing a close must not resurrect it.
        if self._ended:
            return
        self._events.append(event)
        if isinstance(event, DoneEvent):
            self._result, self._ended = event.message, True
        elif isinstance(event, ErrorEvent):
            self._result, self._ended = event.error, True
        self._wake()

    def end(self, result: AssistantMessage | None = None) -> None:
        if self._ended:
            return
        if result is not None:
            self._result = result
        self._ended = True
        self._wake()

    @property
    def ended(self) -> bool:
        return self._ended

    @property
    def buffered(self) -> deque[AssistantMessageEvent]:
        """The events pushed and not read yet, in order; a reader may pop them without awaiting
        (the hot path of streaming: ``loop/stream_response.py``)."""
        return self._events

    @property
    def has_result(self) -> bool:
        """The stream ended with a message (or an error message) that ``result()`` returns."""
        return self._ended and self._result is not None

    def on_close(self, callback: Callable[[], None]) -> None:
        """Called once when the consumer closes the stream early (cancel, failure)."""
        if self.closed:
            callback()
        else:
            self._close_callbacks.append(callback)

    # -- consumer side ------------------------------------------------------------------------
    def __aiter__(self) -> "AssistantMessageEventStream":
        return self

    async def __anext__(self) -> AssistantMessageEvent:
        while not self._events:
            if self._interrupted is not None:
                raise self._interrupted
            if self._ended or self.closed:
                raise StopAsyncIteration
            await self._wait()
        return self._events.popleft()

    async def result(self) -> AssistantMessage:
        while not self._ended:
            if self._interrupted is not None:
                raise self._interrupted
            await self._wait()
        if self._result is None:
            raise StreamEndedWithoutResult(STREAM_ENDED_WITHOUT_RESULT)
        return self._result

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        callbacks, self._close_callbacks = self._close_callbacks, []
        for callback in callbacks:
            callback()
        self._wake()

    def interrupt_waits(self, reason: BaseException) -> None:
        """Makes every current and later wait raise ``reason`` (an abort signal's listener).

        Cheaper than wrapping each read in a cancellable wait: the consumer registers this once.
        """
        self._interrupted = reason
        self._wake()

    # -- internals ----------------------------------------------------------------------------
    async def _wait(self) -> None:
        await self._waiters.wait()

    def _wake(self) -> None:
        self._waiters.wake()


def start_producer(
    produce: Callable[[AssistantMessageEventStream], Awaitable[None]],
    on_crash: Callable[[BaseException], AssistantMessage] | None = None,
) -> AssistantMessageEventStream:
    """Runs ``produce(stream)`` as a task; closing the stream cancels it.

    A producer that crashes without a final event ends the stream with an error message, so a
    consumer never waits forever.
    """
    stream = AssistantMessageEventStream()

    async def runner() -> None:
        try:
            await produce(stream)
        except asyncio.CancelledError:
            if not stream.ended:
                stream.end(AssistantMessage(stop_reason="aborted", error_message="Request aborted"))
            raise
        except Exception as exc:  # noqa: BLE001 - turned into an error result for the consumer
            message = (
                on_crash(exc) if on_crash else AssistantMessage(stop_reason="error", error_message=f"{type(exc).__name__}: {exc}")
            )
            stream.push(ErrorEvent(reason="error", error=message))
        finally:
            if not stream.ended:
                stream.end()

    task = asyncio.get_running_loop().create_task(runner())
    _PRODUCERS.add(task)
    task.add_done_callback(_PRODUCERS.discard)
    stream.on_close(lambda: _cancel(task))
    return stream


def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()


# Strong references: asyncio keeps only weak references to tasks.
_PRODUCERS: set[asyncio.Task[None]] = set()


class StreamFn(Protocol):
    def __call__(
        self,
        model: Model,
        context: Context,
        options: StreamOptions | None = None,
        metadata: ModelInputMetadata | None = None,
    ) -> Union[AssistantMessageEventStream, Awaitable[AssistantMessageEventStream]]: ...
