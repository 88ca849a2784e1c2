"""``EventFeed``: the run's event log, readable by any number of late consumers and listeners.

Every event is kept, so an iterator started late still sees the run from its start, and the
run never waits for a reader: emitting is appending to a list. A listener that raises is reported
as an ``error`` event and the run goes on, unless what it raised is a ``FatalToRun``: then the
run ends with that error (``on_fatal``). A feed carries run events
(``EventFeed[RunEvent]``, a run's own) or more (a notebook turn's feed adds its features'); a
listener's failure is reported into it as a ``RunErrorEvent`` whatever else it carries.
"""

from __future__ import annotations

import inspect
from collections import deque
from typing import Any, Callable, Generic, TypeVar, cast

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.model.waiters import Waiters
from jupyter_agent.runtime.events import RunErrorEvent

E = TypeVar("E")
Listener = Callable[[Any], object]

LISTENER_NOT_SYNC = "Run listeners must be synchronous callables; got an awaitable result"


class FatalToRun(JupyterAgentError):
    """Base of the errors a listener raises when the run must not go on without it.

    The session recorder's ``SessionWriteError`` is one: a run whose transcript can no longer be
    saved ends with that error (reason "error") instead of working on unrecorded to "completed".
    """


class EventFeed(Generic[E]):
    def __init__(self) -> None:
        self._events: list[E] = []
        self._waiters = Waiters()
        self._listeners: tuple[Listener, ...] = ()
        self._undelivered: deque[E] = deque()
        self._dispatching = False
        self._listener_errors: set[int] = set()  # ids of error events that report a listener
        self.closed = False
        # Called with a listener's FatalToRun error (the run sets it to end itself with the error).
        self.on_fatal: Callable[[BaseException], None] | None = None

    def add_listener(self, listener: Listener) -> None:
        if not callable(listener):
            raise ValueError("listener must be callable")
        # A tuple: listeners added while an event is delivered hear the next one, not this one.
        self._listeners = (*self._listeners, listener)

    def emit(self, event: E) -> None:
        # After the finish event nothing more is said: late work of abandoned tasks is dropped.
        if self.closed:
            return
        self._events.append(event)
        if self._waiters:
            self._wake()
        if not self._listeners:
            return
        # A listener that emits (steer, interrupt) must not make later listeners hear the new
        # event before the current one: nested events wait their turn.
        if self._dispatching:
            self._undelivered.append(event)
            return
        self._dispatching = True
        try:
            self._notify(event)
            while self._undelivered:
                self._notify(self._undelivered.popleft())
        finally:
            self._dispatching = False

    def close(self) -> None:
        self.closed = True
        self._wake()

    def __aiter__(self) -> "_FeedReader[E]":
        return _FeedReader(self)

    def _notify(self, event: E) -> None:
        failures = None
        for listener in self._listeners:
            try:
                outcome = listener(event)
                if outcome is not None and inspect.isawaitable(outcome):
                    if inspect.iscoroutine(outcome):
                        outcome.close()
                    raise TypeError(LISTENER_NOT_SYNC)
            except Exception as error:  # noqa: BLE001 - a broken listener must not break the run
                failures = (failures or []) + [error]
                if isinstance(error, FatalToRun) and self.on_fatal is not None:
                    self.on_fatal(error)
        if failures is None:
            return
        # A failure while hearing about a failure is not reported again: it could loop forever.
        # Nothing follows ``finish`` either: it is the last event a reader sees.
        if id(event) in self._listener_errors or getattr(event, "type", None) == "finish":
            return
        for failure in failures:
            report = RunErrorEvent(error=failure)
            self._listener_errors.add(id(report))
            self.emit(cast(E, report))  # every feed carries the reports of its listeners' failures

    def _wake(self) -> None:
        self._waiters.wake()

    async def _wait(self) -> None:
        await self._waiters.wait()


class _FeedReader(Generic[E]):
    """One consumer's position in the feed; ends after the last event of a closed feed."""

    def __init__(self, feed: EventFeed[E]) -> None:
        self._feed = feed
        self._index = 0

    def __aiter__(self) -> "_FeedReader[E]":
        return self

    async def __anext__(self) -> E:
        feed = self._feed
        while self._index >= len(feed._events):
            if feed.closed:
                raise StopAsyncIteration
            await feed._wait()
        event = feed._events[self._index]
        self._index += 1
        return event
