import asyncio

import pytest

from jupyter_agent.model.waiters import Waiters
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


async def test_wake_releases_exactly_the_current_waiters():
    waiters = Waiters()
    released = []

    async def park(name):
        await waiters.wait()
        released.append(name)

    tasks = [asyncio.create_task(park(n)) for n in "ab"]
    await wait_until(lambda: waiters, what="the waiters to park")
    assert waiters
    waiters.wake()
    await asyncio.wait_for(asyncio.gather(*tasks), 1)
    assert sorted(released) == ["a", "b"] and not waiters


async def test_a_cancelled_waiter_leaves_no_trace():
    waiters = Waiters()
    task = asyncio.create_task(waiters.wait())
    await wait_until(lambda: waiters, what="the waiter to park")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not waiters
    waiters.wake()  # nothing left to wake: no error
