import asyncio

import pytest

from jupyter_agent.messages import AssistantMessage
from jupyter_agent.model import (
    AssistantMessageEventStream,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    StreamEndedWithoutResult,
    start_producer,
)

pytestmark = pytest.mark.anyio


async def test_events_iterate_in_order_and_result_is_the_final_message():
    stream = AssistantMessageEventStream()
    final = AssistantMessage(model="m")
    stream.push(StartEvent(partial=AssistantMessage()))
    stream.push(DoneEvent(reason="stop", message=final))
    stream.push(StartEvent(partial=AssistantMessage()))  # ignored after the end
    assert [event.type async for event in stream] == ["start", "done"]
    assert await stream.result() is final


async def test_consumer_waits_for_pushes():
    stream = AssistantMessageEventStream()
    consuming = asyncio.Event()

    async def produce():
        await consuming.wait()  # the consumer is waiting in the stream by now
        stream.push(ErrorEvent(reason="error", error=AssistantMessage(stop_reason="error", error_message="x")))

    async def consume():
        consuming.set()  # set in the step that then waits in the stream
        return [event.type async for event in stream]

    task = asyncio.create_task(produce())
    assert await consume() == ["error"]
    assert (await stream.result()).error_message == "x"
    await task


async def test_end_with_result_and_without():
    stream = AssistantMessageEventStream()
    stream.end(AssistantMessage(model="only"))
    assert (await stream.result()).model == "only"
    empty = AssistantMessageEventStream()
    empty.end()
    with pytest.raises(StreamEndedWithoutResult, match="Model stream ended without a final response"):
        await empty.result()


async def test_closing_cancels_the_producer():
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def produce(stream):
        stream.push(StartEvent(partial=AssistantMessage()))
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    stream = start_producer(produce)
    await asyncio.wait_for(started.wait(), 1)
    await stream.aclose()
    await asyncio.wait_for(cancelled.wait(), 1)
    assert (await stream.result()).stop_reason == "aborted"


async def test_crashing_producer_ends_with_an_error_event():
    async def produce(stream):
        raise ValueError("bad chunk")

    stream = start_producer(produce)
    events = [event async for event in stream]
    assert [event.type for event in events] == ["error"]
    assert (await stream.result()).error_message == "ValueError: bad chunk"
