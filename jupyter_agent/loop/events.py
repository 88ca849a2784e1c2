"""Event emission: listeners get copies, sync or async, and a raising listener fails the run."""

from __future__ import annotations

import inspect

from jupyter_agent.messages import Message, copy_message, fast_copy_assistant
from jupyter_agent.loop.types import EventListener, LoopEvent, MessageUpdateEvent


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
        if inspect.isawaitable(outcome):
            await outcome

    async def message(self, event_class: type, message: Message) -> None:
        if self._listener is not None:
            await self(event_class(message=copy_message(message)))

    async def update(self, stream_event) -> None:
        if self._listener is None:
            return
        # One copy of the partial serves both the loop event and the carried stream event.
        snapshot = fast_copy_assistant(stream_event.partial)
        carried = stream_event.model_copy(update={"partial": snapshot})
        if stream_event.type == "tool_call_end":
            carried.tool_call = stream_event.tool_call.model_copy(deep=True)
        await self(MessageUpdateEvent.model_construct(
            type="message_update", message=snapshot, assistant_message_event=carried
        ))
