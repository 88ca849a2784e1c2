import asyncio

import pytest

from jupyter_agent.model import StreamOptions
from jupyter_agent.model.idle_timeout import (
    DEFAULT_IDLE_TIMEOUT,
    IDLE_TIMEOUT_ENV,
    IdleTimeout,
    idle_timeout_seconds,
    no_data_message,
)
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until

pytestmark = pytest.mark.anyio


async def test_touching_keeps_the_block_alive_and_silence_ends_it():
    touches = 0
    with pytest.raises(TimeoutError):
        async with IdleTimeout(0.2) as idle:
            while touches < 8:  # 0.4 s in all, twice the bound: touching keeps it alive
                await assert_quiet_for(0.05, lambda: idle.expired, "the timeout between touches")
                idle.touch()
                touches += 1
            await asyncio.Event().wait()  # silence
    assert touches == 8 and idle.expired


async def test_a_block_that_ends_in_time_is_not_expired_and_leaves_no_timer():
    async with IdleTimeout(5) as idle:
        idle.touch()
    assert not idle.expired and idle._timer is None


async def test_an_outer_cancellation_is_not_a_timeout():
    inside = asyncio.Event()

    async def body():
        async with IdleTimeout(5):
            inside.set()
            await asyncio.Event().wait()

    task = asyncio.ensure_future(body())
    await wait_until(inside.is_set, what="the block to be entered")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_the_bound_comes_from_the_options_then_the_environment_then_the_default(monkeypatch):
    monkeypatch.delenv(IDLE_TIMEOUT_ENV, raising=False)
    assert idle_timeout_seconds(None) == DEFAULT_IDLE_TIMEOUT == 120
    monkeypatch.setenv(IDLE_TIMEOUT_ENV, "30")
    assert idle_timeout_seconds(None) == 30 and idle_timeout_seconds(5) == 5
    monkeypatch.setenv(IDLE_TIMEOUT_ENV, "soon")
    with pytest.raises(ValueError, match="^JUPYTER_AGENT_STREAM_TIMEOUT must be a number of seconds, not 'soon'$"):
        idle_timeout_seconds(None)
    monkeypatch.setenv(IDLE_TIMEOUT_ENV, "0")
    with pytest.raises(ValueError, match="^JUPYTER_AGENT_STREAM_TIMEOUT must be positive, not '0'$"):
        idle_timeout_seconds(None)
    with pytest.raises(ValueError, match="greater than 0"):
        StreamOptions(idle_timeout=0)
    assert no_data_message("anthropic", 120.0) == "anthropic: no data from the provider for 120 s"
