"""``EventFeed``: the run's event log, readable by any number of late consumers and listeners.

Every event is kept, so an iterator started late still sees the run from its start, and the
run never waits for a reader: emitting is appending to a list.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Callable

from jupyter_agent.runtime.events import RunErrorEvent, RunEvent

Listener = Callable[[RunEvent], object]

LISTENER_NOT_SYNC = "Run listeners must be synchronous callables; got an awaitable result"


class EventFeed:
    def __init__(self) -> None:
        self._events: list[RunEvent] = []
        self._waiters: list[asyncio.Future] = []
        self._listeners: list[Listener] = []
        self.closed = False

    def add_listener(self, listener: Listener) -> None:
        if not callable(listener):
            raise ValueError("listener must be callable")
        self._listeners.append(listener)

    def emit(self, event: RunEvent) -> None:
        # After the finish event nothing more is said: late work of abandoned tasks is dropped.
        if self.closed:
            return
        self._events.append(event)
        if self._waiters:
            self._wake()
        if self._listeners:
            self._notify(event)

    def close(self) -> None:
        self.closed = True
        self._wake()

    def __aiter__(self) -> "_FeedReader":
        return _FeedReader(self)

    def _notify(self, event: RunEvent) -> None:
        for listener in list(self._listeners):
            try:
                outcome = listener(event)
                if inspect.isawaitable(outcome):
                    if inspect.iscoroutine(outcome):
                        outcome.close()
                    raise TypeError(LISTENER_NOT_SYNC)
            except Exception as error:  # noqa: BLE001 - a broken listener must not break the run
                self._report(error, listener)

    def _report(self, error: Exception, failed: Listener) -> None:
        event = RunErrorEvent(error=error)
        self._events.append(event)
        self._wake()
        for listener in list(self._listeners):
            if listener is failed:
                continue  # it would likely fail again, and could loop forever
            try:
                listener(event)
            except Exception:  # noqa: BLE001 - a failure about a failure is not reported again
                pass

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def _wait(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)


class _FeedReader:
    """One consumer's position in the feed; ends after the last event of a closed feed."""

    def __init__(self, feed: EventFeed) -> None:
        self._feed = feed
        self._index = 0

    def __aiter__(self) -> "_FeedReader":
        return self

    async def __anext__(self) -> RunEvent:
        feed = self._feed
        while self._index >= len(feed._events):
            if feed.closed:
                raise StopAsyncIteration
            await feed._wait()
        event = feed._events[self._index]
        self._index += 1
        return event
