import asyncio
import threading
import time

import pytest

from jupyter_agent.testing.waiting import wait_until, wait_until_blocking
from jupyter_agent.tools.blocking import in_thread

pytestmark = pytest.mark.anyio


async def test_result_comes_back():
    assert await in_thread(lambda stop: 41 + 1) == 42


async def test_cancellation_returns_at_once_and_tells_the_worker_to_stop():
    seen_stop = threading.Event()
    working = threading.Event()

    def work(stop):
        working.set()
        stop.wait(10)
        seen_stop.set()

    task = asyncio.ensure_future(in_thread(work))
    await wait_until(working.is_set, what="the worker to start")
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1
    assert await asyncio.to_thread(seen_stop.wait, 5)


async def test_the_event_loop_stays_responsive_during_work():
    ticks = []

    def tick():
        ticks.append(time.monotonic())
        if len(ticks) < 50:
            loop.call_later(0.001, tick)

    loop = asyncio.get_running_loop()
    loop.call_soon(tick)
    # The work blocks its thread until the loop has ticked five times: a frozen loop never would.
    await in_thread(lambda stop: wait_until_blocking(lambda: len(ticks) >= 5, 5, "the loop ticking meanwhile"))
    assert len(ticks) >= 5
