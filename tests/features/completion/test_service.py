"""The completion service: streamed updates on its own thread, cancellation, the demo, refusals."""

import threading

import pandas as pd
import pytest

from jupyter_agent.features.completion import CompletionModel, CompletionRequest, CompletionService
from jupyter_agent.features.completion.service import USER_CELL_RUNNING
from jupyter_agent.messages import TextContent
from jupyter_agent.model.scripted import ScriptedModel, ScriptedResponse, reply
from jupyter_agent.testing.waiting import wait_until
from jupyter_agent.tools.data_policy import DataPolicy

pytestmark = pytest.mark.anyio
OPEN: list[CompletionService] = []


@pytest.fixture(autouse=True)
def close_services():
    yield
    while OPEN:
        OPEN.pop().close()


def service(model, *, running=False, is_demo=False, stream_fn=None):
    chosen = CompletionModel(model.model("fast") if model else None, stream_fn or model, "fast model", is_demo=is_demo)

    async def resolve():
        return chosen

    namespace = {"df": pd.DataFrame({"revenue_q3": [1.0]})}
    running_now = running if callable(running) else (lambda: running)
    made = CompletionService(namespace, model=resolve, policy=DataPolicy, user_code_running=running_now)
    OPEN.append(made)
    return made


async def finished(updates):
    await wait_until(lambda: updates and updates[-1].done, what="the last update")
    return updates[-1]


async def test_the_answer_streams_as_the_whole_suggestion_so_far():
    model = ScriptedModel([reply("revenue_q3.sum()")], chunk_size=4)
    updates = []
    service(model).start(CompletionRequest("r1", "df."), updates.append)
    end = await finished(updates)
    assert [u.text for u in updates] == ["reve", "revenue_", "revenue_q3.s", "revenue_q3.sum()", "revenue_q3.sum()"]
    assert end.status == "done" and end.model == "fast model"
    request = model.requests[0]
    assert "revenue_q3 (float64)" in request.context.messages[0].content
    assert request.options.max_tokens == 128 and request.options.temperature == 0.0


async def test_cancel_closes_the_stream_and_ends_cancelled():
    model = ScriptedModel([ScriptedResponse(content=[TextContent(text="rev")], hang=True)])
    updates = []
    completions = service(model)
    completions.start(CompletionRequest("r2", "df."), updates.append)
    await wait_until(lambda: updates, what="the first update")
    assert completions.active == ["r2"] and completions.cancel("r2")
    end = await finished(updates)
    assert end.status == "cancelled" and end.text == ""
    await wait_until(lambda: not completions.active, what="the cancelled request to end")
    assert completions.active == [] and not completions.cancel("r2")


async def test_a_running_cell_of_the_user_skips_the_request_at_once():
    model = ScriptedModel([reply("never")])
    updates = []
    service(model, running=True).start(CompletionRequest("r3", "df."), updates.append)
    assert [(u.status, u.message) for u in updates] == [("skipped", USER_CELL_RUNNING)]
    assert model.requests == []


async def test_a_failing_model_ends_in_error_with_the_reason():
    model = ScriptedModel([])  # exhausted: an error event
    updates = []
    service(model).start(CompletionRequest("r4", "df."), updates.append)
    end = await finished(updates)
    assert end.status == "error" and "No more scripted responses" in end.message


async def test_the_demo_completes_a_real_column_and_says_it_is_the_demo():
    updates = []
    service(ScriptedModel(), is_demo=True).start(CompletionRequest("r5", "df."), updates.append)
    end = await finished(updates)
    assert end.text == "revenue_q3.describe()  # offline demo completion" and len(updates) > 2


async def test_the_request_streams_on_the_completion_thread_not_the_callers():
    model = ScriptedModel([reply("revenue_q3")])
    streamed_on = []

    def recording(*args):
        streamed_on.append(threading.get_ident())
        return model(*args)

    updates = []
    completions = service(model, stream_fn=recording)
    completions.start(CompletionRequest("r6", "df."), updates.append)
    assert (await finished(updates)).status == "done"
    assert streamed_on == [completions.thread.ident] and streamed_on[0] != threading.get_ident()


async def test_a_request_cancelled_before_its_thread_started_it_never_reaches_the_model():
    model = ScriptedModel([reply("never")])
    updates = []
    completions = service(model)
    busy, release = threading.Event(), threading.Event()
    completions.thread.call(lambda: (busy.set(), release.wait(5)))  # the thread is busy: the request waits
    assert busy.wait(5)
    completions.start(CompletionRequest("r7", "df."), updates.append)
    assert completions.active == ["r7"] and completions.cancel("r7")
    release.set()
    end = await finished(updates)
    assert [u.status for u in updates] == ["cancelled"] and end.text == ""
    assert model.requests == [] and completions.active == []


async def test_close_cancels_what_streams_and_stops_the_thread():
    model = ScriptedModel([ScriptedResponse(content=[TextContent(text="rev")], hang=True)])
    updates = []
    completions = service(model)
    completions.start(CompletionRequest("r8", "df."), updates.append)
    await wait_until(lambda: updates, what="the first update")
    assert completions.thread.running
    completions.close()
    assert not completions.thread.running and updates[-1].status == "cancelled"


async def test_a_cell_of_the_user_silences_what_streams_at_once_and_cancels_it_soon_after():
    model = ScriptedModel([ScriptedResponse(content=[TextContent(text="revenue_q3.sum()")], hang=True)], chunk_size=4)
    updates, running = [], []
    completions = service(model, running=lambda: bool(running))
    completions.start(CompletionRequest("r9", "df."), updates.append)
    await wait_until(lambda: updates, what="the first update")
    running.append(True)  # pre_run_cell
    assert completions.make_way() == 1
    end = await finished(updates)
    assert end.status == "cancelled" and completions.active == []
    assert all(update.status == "streaming" for update in updates[:-1])
    assert completions.make_way() == 0  # nothing streams: nothing to cancel
