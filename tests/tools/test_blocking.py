import asyncio
import threading
import time

import pytest

from jupyter_agent.testing.waiting import wait_until
from jupyter_agent.tools.blocking import in_thread

pytestmark = pytest.mark.anyio


async def test_result_comes_back():
    assert await in_thread(lambda stop: 41 + 1) == 42


async def test_cancellation_returns_at_once_and_tells_the_worker_to_stop():
    seen_stop = threading.Event()
    working = threading.Event()

    def work(stop):
        working.set()
        deadline = time.monotonic() + 10
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
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

    async def ticker():
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    tick_task = asyncio.ensure_future(ticker())
    await in_thread(lambda stop: time.sleep(0.3))
    tick_task.cancel()
    assert len(ticks) >= 5
