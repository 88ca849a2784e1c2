"""SpendPool: children running at once share their parent's remaining spend."""

import asyncio

import pytest

from jupyter_agent.features.delegation.spend import SpendPool
from jupyter_agent.testing.waiting import assert_quiet_for

pytestmark = pytest.mark.anyio


class Member:
    def __init__(self, last_step_cost=None):
        self.awaiting_response = False
        self.last_step_cost = last_step_cost


def test_requests_out_are_projected_at_the_last_step_or_the_costliest_seen():
    pool = SpendPool()
    a, b, c = Member(0.1), Member(), Member(0.3)
    pool.members += [a, b, c]
    pool.charged(0.25)
    a.awaiting_response = b.awaiting_response = True
    assert pool.pending() == pytest.approx(0.35)  # a: its last step; b: the costliest seen; c: nothing out
    assert pool.pending(exclude=a) == pytest.approx(0.25)
    assert pool.allows(0.6, c, 0.25) and not pool.allows(0.55, c, 0.25)
    assert pool.allows(None, c, 99.0)  # no ceiling


async def test_without_a_ceiling_members_join_at_once():
    pool = SpendPool()
    first, second = Member(), Member()
    assert await pool.admit(first, lambda: None) and await pool.admit(second, lambda: None)
    assert first.awaiting_response and pool.members == [first, second]


async def test_a_member_waits_while_a_first_request_of_unknown_cost_is_out():
    pool = SpendPool()
    first, second = Member(), Member()
    remaining = {"usd": 1.0}
    assert await pool.admit(first, lambda: remaining["usd"])
    waiting = asyncio.ensure_future(pool.admit(second, lambda: remaining["usd"]))
    await assert_quiet_for(0.01, waiting.done, "admitting the second member")
    assert not waiting.done()
    remaining["usd"] = 0.6
    first.awaiting_response = False
    pool.charged(0.4)
    assert await asyncio.wait_for(waiting, 5) is True  # 0.6 left pays for a 0.4 step


async def test_a_member_that_would_not_fit_is_refused_and_leaving_wakes_waiters():
    pool = SpendPool()
    first, second = Member(), Member()
    assert await pool.admit(first, lambda: 0.5)
    waiting = asyncio.ensure_future(pool.admit(second, lambda: 0.5))
    await assert_quiet_for(0.01, waiting.done, "admitting the second member")  # it waits for the first
    pool.leave(first)  # failed before any response: nothing is known, nothing is out
    assert await asyncio.wait_for(waiting, 5) is True
    pool.charged(0.3)
    third = Member()
    assert await pool.admit(third, lambda: 0.5) is False  # 0.5 - second's 0.3 out < 0.3
