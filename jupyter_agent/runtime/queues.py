"""Steering and follow-up queues: text a human sends while the run works.

A steer is delivered at the next step boundary; a follow-up only when the run would otherwise
finish. Both are FIFO, steers first. Delivery is the loop's business (its steering and follow-up
polls); this module only stores, orders and announces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

from jupyter_agent.runtime.events import RunEvent, UserMessageEvent

Delivery = Literal["steer", "follow_up"]


@dataclass
class Pending:
    steer: list[str] = field(default_factory=list)
    follow_up: list[str] = field(default_factory=list)


class InputQueues:
    def __init__(self, emit: Callable[[RunEvent], None]) -> None:
        self._emit = emit
        self._steer: list[str] = []
        self._follow_up: list[str] = []
        self.closed = False

    def push(self, text: object, delivery: Delivery) -> bool:
        """Queues trimmed text; blank text or a settled run is refused (``False``)."""
        if self.closed or not isinstance(text, str):
            return False
        text = text.strip()
        if not text:
            return False
        (self._steer if delivery == "steer" else self._follow_up).append(text)
        self._emit(UserMessageEvent(text=text, delivery=delivery, phase="queued"))
        return True

    @property
    def has_input(self) -> bool:
        return bool(self._steer or self._follow_up)

    def queued_text(self) -> list[str]:
        return self._steer + self._follow_up

    def take(self, delivery: Delivery) -> list[str]:
        """Removes and announces every queued message of one kind, in order."""
        queue = self._steer if delivery == "steer" else self._follow_up
        taken = list(queue)
        queue.clear()
        for text in taken:
            self._emit(UserMessageEvent(text=text, delivery=delivery, phase="delivered"))
        return taken

    def pending(self) -> Pending:
        return Pending(steer=list(self._steer), follow_up=list(self._follow_up))
