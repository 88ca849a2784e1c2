"""The spend that sub-agents running at once share: their parent's remaining ``max_spend_usd``.

Each child's usage is charged to the parent as it happens, so the parent's remaining spend is
what is left after every finished request. What it does not show yet is requests still out:
each running child that waits for a response is projected to cost what its last step cost (a
first step: what the costliest step seen cost). A child starts, or takes another step, only if
the remaining spend less its siblings' projected requests pays for its own projected step.

Before any cost is known nothing can be projected, so while a first request of unknown cost is
out, further children wait for it to be charged. Only the very first request goes unprojected,
as a run's own first step does.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Protocol


class PoolMember(Protocol):
    awaiting_response: bool  # a request is out whose cost is not charged yet
    last_step_cost: float | None


class SpendPool:
    def __init__(self) -> None:
        self.max_step_cost = 0.0
        self.cost_seen = False
        self.members: list[PoolMember] = []
        self._changed = asyncio.Event()

    def projection(self, member: PoolMember) -> float:
        return self.max_step_cost if member.last_step_cost is None else member.last_step_cost

    def pending(self, exclude: PoolMember | None = None) -> float:
        """Projected cost of the requests the members have out, ``exclude``'s own left aside."""
        return sum(self.projection(m) for m in self.members if m is not exclude and m.awaiting_response)

    def allows(self, remaining: float | None, member: PoolMember, cost: float) -> bool:
        return remaining is None or remaining - self.pending(exclude=member) >= cost

    async def admit(self, member: PoolMember, remaining: Callable[[], float | None]) -> bool:
        """Joins the pool with its first request counted as out; ``False``: it would not fit."""
        if remaining() is not None:
            while not self.cost_seen and any(m.awaiting_response for m in self.members):
                await self._wait()
            if not self.allows(remaining(), member, self.max_step_cost):
                return False
        member.awaiting_response = True
        self.members.append(member)
        return True

    def charged(self, step_cost: float) -> None:
        """A member's response was charged: its step's cost so far is known."""
        self.max_step_cost = max(self.max_step_cost, step_cost)
        self.cost_seen = True
        self._wake()

    def leave(self, member: PoolMember) -> None:
        if member in self.members:
            self.members.remove(member)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait(self) -> None:
        await self._changed.wait()


__all__ = ["PoolMember", "SpendPool"]
