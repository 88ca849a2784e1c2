import asyncio

import pytest

from jupyter_agent import AbortController, RunCancelled
from jupyter_agent.loop.abort import abortable
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until

pytestmark = pytest.mark.anyio


def test_default_reason_is_an_exception_not_a_base_exception():
    controller = AbortController()
    controller.abort()
    assert isinstance(controller.signal.reason, RunCancelled)
    assert isinstance(controller.signal.reason, Exception)
    assert str(controller.signal.reason) == "Run cancelled"
    with pytest.raises(RunCancelled):
        controller.signal.throw_if_aborted()


def test_listeners_fire_once_and_can_be_removed():
    controller = AbortController()
    calls = []
    removed = calls.append
    controller.signal.add_listener(calls.append)
    controller.signal.add_listener(removed)
    controller.signal.remove_listener(removed)
    controller.abort(ValueError("x"))
    controller.abort(ValueError("second abort ignored"))
    assert [str(c) for c in calls] == ["x"]
    late = []
    controller.signal.add_listener(late.append)  # a late listener hears at once
    assert str(late[0]) == "x"


async def test_abortable_returns_the_value():
    controller = AbortController()

    async def value():
        return 5

    assert await abortable(value(), controller.signal) == 5
    assert controller.signal._listeners == []


async def test_abortable_interrupts_a_wait_and_cancels_the_work():
    controller = AbortController()
    cancelled = asyncio.Event()

    async def forever():
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    asyncio.get_running_loop().call_later(0.01, controller.abort)
    with pytest.raises(RunCancelled):
        await abortable(forever(), controller.signal)
    await asyncio.wait_for(cancelled.wait(), 1)
    assert controller.signal._listeners == []


async def test_abortable_ignores_late_failure_of_abandoned_work():
    controller = AbortController()
    loop = asyncio.get_running_loop()
    unhandled = []
    loop.set_exception_handler(lambda loop, context: unhandled.append(context))

    ended = asyncio.Event()

    async def fails_on_cancel():
        try:
            await asyncio.Event().wait()
        finally:
            ended.set()
            raise RuntimeError("late failure")

    loop.call_later(0.01, controller.abort)
    with pytest.raises(RunCancelled):
        await abortable(fails_on_cancel(), controller.signal)
    await wait_until(ended.is_set, what="the abandoned work to fail")
    import gc

    gc.collect()
    await assert_quiet_for(0.02, lambda: unhandled, "an unhandled late failure")
    assert unhandled == []
    loop.set_exception_handler(None)


async def test_abortable_raises_at_once_when_already_aborted():
    controller = AbortController()
    controller.abort()

    async def work():
        return None

    coro = work()
    with pytest.raises(RunCancelled):
        await abortable(coro, controller.signal)
    coro.close()
