"""The request boundary with a foreign stream object (any async iterator with ``result()``)."""

import asyncio

import pytest

from jupyter_agent import AbortController, RunCancelled, run_agent_loop
from jupyter_agent.messages import AssistantMessage, TextContent
from jupyter_agent.model import DoneEvent, StartEvent, TextDeltaEvent

pytestmark = pytest.mark.anyio


class ForeignStream:
    """Not an AssistantMessageEventStream: exercises the generic cancellable read path."""

    def __init__(self, events, final, hang_after=None):
        self.events = list(events)
        self.final = final
        self.hang_after = hang_after
        self.closed = False
        self.result_reads = 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.hang_after is not None and not self.events:
            await asyncio.Event().wait()  # until cancelled
        if not self.events:
            raise StopAsyncIteration
        return self.events.pop(0)

    async def result(self):
        self.result_reads += 1
        return self.final

    async def aclose(self):
        self.closed = True


def final_message(text):
    return AssistantMessage(content=[TextContent(text=text)])


async def test_foreign_stream_is_consumed_and_closed(scripted, options_for):
    partial = AssistantMessage(content=[TextContent(text="he")])
    final = final_message("hello")
    stream = ForeignStream(
        [
            StartEvent(partial=AssistantMessage()),
            TextDeltaEvent(content_index=0, delta="he", partial=partial),
            DoneEvent(reason="stop", message=final),
        ],
        final,
    )
    options = options_for(scripted)
    options.stream_fn = lambda *args: stream
    deltas = []
    result = await run_agent_loop("go", [], options, lambda e: deltas.append(e) if e.type == "message_update" else None)
    assert result.text == "hello" and stream.closed and stream.result_reads == 1
    assert deltas[0].assistant_message_event.delta == "he"


async def test_foreign_stream_wait_is_interrupted_by_the_signal(scripted, options_for):
    stream = ForeignStream([StartEvent(partial=AssistantMessage())], final_message("never"), hang_after=0)
    options = options_for(scripted)
    options.stream_fn = lambda *args: stream
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.02, controller.abort)
    with pytest.raises(RunCancelled):
        await asyncio.wait_for(run_agent_loop("go", [], options, signal=controller.signal), 2)
    assert stream.closed
