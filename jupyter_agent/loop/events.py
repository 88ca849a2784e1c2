"""Event emission: listeners get copies, sync or async, and a raising listener fails the run."""

from __future__ import annotations

import inspect

from jupyter_agent.loop.types import EventListener, LoopEvent, MessageUpdateEvent
from jupyter_agent.messages import Message, copy_message
from jupyter_agent.model.events import PartialEvent


class Emitter:
    def __init__(self, listener: EventListener | None) -> None:
        self._listener = listener

    @property
    def active(self) -> bool:
        return self._listener is not None

    async def __call__(self, event: LoopEvent) -> None:
        if self._listener is None:
            return
        outcome = self._listener(event)
        if outcome is not None and inspect.isawaitable(outcome):
            await outcome

    async def message(self, event_class: type, message: Message) -> None:
        if self._listener is not None:
            await self(event_class(message=copy_message(message)))

    async def update(self, stream_event: PartialEvent) -> None:
        if self._listener is None:
            return
        # No copy here: a stream event's partial is a snapshot made for that event alone, owned
        # by its consumer (the StreamFn contract). Copying again would double the per-delta cost.
        outcome = self._listener(MessageUpdateEvent(stream_event.partial, stream_event))
        if outcome is not None and inspect.isawaitable(outcome):
            await outcome
