"""The event feed: buffered for late readers, never blocking, listeners contained."""

import asyncio

import pytest

from jupyter_agent.runtime.events import RunStartEvent, StepStartEvent
from jupyter_agent.runtime.feed import LISTENER_NOT_SYNC, EventFeed
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


async def test_every_reader_sees_every_event_from_the_start():
    feed = EventFeed()
    feed.emit(RunStartEvent(step_budget=None))
    early = feed.__aiter__()
    assert (await early.__anext__()).type == "run_start"
    feed.emit(StepStartEvent(step=1))
    feed.close()
    feed.emit(StepStartEvent(step=2))  # after close: dropped
    late = [event.type async for event in feed]
    assert late == ["run_start", "step_start"]
    assert [event.type async for event in early] == ["step_start"]


async def test_a_waiting_reader_wakes_on_emit_and_on_close():
    feed = EventFeed()
    reading, seen = asyncio.Event(), []

    async def read_all():
        reading.set()  # the reader runs on into the feed and waits there, within this step
        async for event in feed:
            seen.append(event.type)
        return seen

    reader = asyncio.ensure_future(read_all())
    await wait_until(reading.is_set, what="the reader waiting")
    feed.emit(StepStartEvent(step=1))
    await wait_until(lambda: seen, what="the reader woken by the event")
    feed.close()
    assert await asyncio.wait_for(reader, 5) == ["step_start"]


def test_emitting_without_readers_never_blocks():
    feed = EventFeed()
    for step in range(10_000):
        feed.emit(StepStartEvent(step=step))
    assert len(feed._events) == 10_000


def test_a_failing_listener_becomes_one_error_event_and_others_still_hear_everything():
    feed = EventFeed()
    heard = []

    def broken(event):
        raise ValueError("boom")

    feed.add_listener(broken)
    feed.add_listener(heard.append)
    feed.emit(StepStartEvent(step=1))
    assert [e.type for e in heard] == ["step_start", "error"]
    assert str(heard[1].error) == "boom"
    assert [e.type for e in feed._events] == ["step_start", "error"]


def test_an_async_listener_is_reported_not_left_unawaited():
    feed = EventFeed()

    async def listener(event):
        return None

    feed.add_listener(listener)
    feed.emit(StepStartEvent(step=1))
    assert str(feed._events[-1].error) == LISTENER_NOT_SYNC


def test_listeners_must_be_callable():
    with pytest.raises(ValueError, match="listener must be callable"):
        EventFeed().add_listener("not a function")


def test_a_listener_that_fails_on_everything_does_not_loop():
    feed = EventFeed()
    feed.add_listener(lambda event: 1 / 0)
    feed.emit(StepStartEvent(step=1))
    assert [e.type for e in feed._events] == ["step_start", "error"]


def test_events_emitted_by_a_listener_reach_later_listeners_in_order():
    feed = EventFeed()
    heard = []
    feed.add_listener(lambda event: feed.emit(StepStartEvent(step=2)) if event.step == 1 else None)
    feed.add_listener(lambda event: heard.append(event.step))
    feed.emit(StepStartEvent(step=1))
    assert heard == [1, 2]


def test_nothing_follows_finish_even_a_listener_failure():
    from jupyter_agent.runtime.events import FinishEvent
    from jupyter_agent.runtime.spend import RunUsage

    feed = EventFeed()
    feed.add_listener(lambda event: 1 / 0 if event.type == "finish" else None)
    feed.emit(FinishEvent(reason="completed", text="", usage=RunUsage()))
    assert [e.type for e in feed._events] == ["finish"]
