"""Inline completion in a real kernel, over the extension's comm as JupyterLab sends it (a subshell),
against the fake provider over HTTP: the live variables reach the prompt, the answer streams, a
cancel closes the provider's connection, and a cell of the user cancels what is streaming.
One kernel for the module: importing litellm there takes seconds."""

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME
from jupyter_agent.testing.fake_provider import FakeProvider, hanging, text

pytestmark = pytest.mark.kernel

FIRST_COMPLETION_TIMEOUT = 90  # the first request waits for litellm's import in the kernel (~8 s)
COLUMN = "revenue_q3"


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


@pytest.fixture(scope="module")
def kernel(tmp_path_factory, provider):
    harness = notebook_kernel(tmp_path_factory.mktemp("completion-kernel"), model="", notebook_name="complete.ipynb")
    harness.execute(
        '%config AgentMagics.completion_model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        '%config AgentMagics.api_key = "sk-fake"\n'
        "import pandas as pd\n"
        # The column's name is assembled, so it appears in no source: only the namespace has it.
        'df = pd.DataFrame({"revenue_" + "q3": [1.5, 2.5], "region": ["north", "south"]})\n'
        'unrelated = pd.DataFrame({"private_" + "col": [1]})\n'
    )
    harness.subshell = harness.create_subshell()
    harness.comm_id = "completion-frontend"
    hello = {"type": "hello", "version": PROTOCOL_VERSION, "client": "test"}
    send(harness, "comm_open", {"comm_id": harness.comm_id, "target_name": TARGET_NAME, "data": hello})
    harness.wait_for(lambda: messages_of(harness, "welcome"), what="the welcome")
    yield harness
    harness.shutdown()


def send(kernel, msg_type, content):
    msg = kernel.kc.session.msg(msg_type, content)
    msg["header"]["subshell_id"] = kernel.subshell
    kernel.kc.shell_channel.send(msg)


def messages_of(kernel, kind, request_id=None):
    found = []
    for message in kernel.messages:
        if message["msg_type"] != "comm_msg" or message["content"]["comm_id"] != getattr(kernel, "comm_id", None):
            continue
        data = message["content"]["data"]
        if data.get("type") == kind and (request_id is None or data.get("request_id") == request_id):
            found.append(data)
    return found


def complete(kernel, request_id, prefix, suffix="", cells_above=(), replaces=None):
    request = {"type": "complete_request", "request_id": request_id, "prefix": prefix, "suffix": suffix}
    if replaces is not None:
        request["replaces"] = replaces
    send(kernel, "comm_msg", {"comm_id": kernel.comm_id, "data": {**request, "cells_above": list(cells_above)}})


def final(kernel, request_id, timeout=FIRST_COMPLETION_TIMEOUT):
    def done():
        updates = messages_of(kernel, "completion", request_id)
        return updates[-1] if updates and updates[-1]["status"] != "streaming" else None

    return kernel.wait_for(done, timeout, f"the end of completion {request_id}")


def column_responder(body):
    """Answers with the first column the prompt lists for ``df``: what the kernel added."""
    prompt = body["messages"][-1]["content"]
    columns = prompt.split("columns: ", 1)[1].split("\n", 1)[0]
    return text(columns.split(" (", 1)[0], "[:3]", delay=0.02)


def test_the_prompt_carries_the_live_columns_of_the_variable_the_prefix_names(kernel, provider):
    provider.queue(column_responder)
    complete(kernel, "c1", "total = df.", cells_above=["import pandas as pd", "df = load()"])
    end = final(kernel, "c1")
    assert end["status"] == "done" and end["text"] == f"{COLUMN}[:3]"
    streamed = [update["text"] for update in messages_of(kernel, "completion", "c1")]
    assert streamed[0] != streamed[-1] and streamed[-1].startswith(streamed[0])  # it streamed, growing
    prompt = provider.requests[-1]["messages"][-1]["content"]
    assert f"{COLUMN} (float64)" in prompt and "total = df.<CURSOR>" in prompt and "df = load()" in prompt
    assert "private_col" not in prompt  # a variable the prefix does not name stays out
    assert provider.requests[-1]["model"] == "fake-model" and provider.requests[-1]["max_tokens"] == 128
    # An OpenAI-compatible api_base: the completion thread's direct POST sent it, not litellm.
    assert provider.request_headers[-1]["user-agent"] == "jupyter-agent-completion"


def test_a_cancel_closes_the_providers_connection(kernel, provider):
    disconnects = len(provider.disconnects)
    provider.queue(hanging("rev", delay=0.02))
    complete(kernel, "c2", "df.")
    kernel.wait_for(lambda: messages_of(kernel, "completion", "c2"), FIRST_COMPLETION_TIMEOUT, "the first piece")
    send(kernel, "comm_msg", {"comm_id": kernel.comm_id, "data": {"type": "complete_cancel", "request_id": "c2"}})
    assert provider.wait_for_disconnect(disconnects + 1, timeout=10) is not None
    assert final(kernel, "c2")["status"] == "cancelled"


def test_a_request_that_replaces_another_cancels_it_and_streams_its_own(kernel, provider):
    disconnects = len(provider.disconnects)
    provider.queue(hanging("rev", delay=0.02), column_responder)
    complete(kernel, "c7", "df")
    kernel.wait_for(lambda: messages_of(kernel, "completion", "c7"), FIRST_COMPLETION_TIMEOUT, "the first piece")
    complete(kernel, "c8", "df.", replaces="c7")
    assert provider.wait_for_disconnect(disconnects + 1, timeout=10) is not None
    assert final(kernel, "c7")["status"] == "cancelled"
    assert final(kernel, "c8") == {**final(kernel, "c8"), "status": "done", "text": f"{COLUMN}[:3]"}


def test_a_cell_of_the_user_cancels_the_completion_streaming_meanwhile(kernel, provider):
    disconnects = len(provider.disconnects)
    provider.queue(hanging("rev", delay=0.02))
    complete(kernel, "c3", "df.")
    kernel.wait_for(lambda: messages_of(kernel, "completion", "c3"), FIRST_COMPLETION_TIMEOUT, "the first piece")
    assert kernel.execute("1+1").ok
    assert final(kernel, "c3")["status"] == "cancelled"
    assert provider.wait_for_disconnect(disconnects + 1, timeout=10) is not None


def test_completions_can_be_turned_off(kernel, provider):
    requests = len(provider.requests)
    kernel.execute("%config AgentMagics.completion = False")
    try:
        complete(kernel, "c4", "df.")
        end = final(kernel, "c4")
    finally:
        kernel.execute("%config AgentMagics.completion = True")
    assert end["status"] == "skipped" and "AgentMagics.completion = True" in end["message"]
    assert len(provider.requests) == requests


def test_a_headless_run_gets_no_completion(kernel, provider):
    requests = len(provider.requests)
    # As papermill or nbclient run it: no session name in the environment, no __session__.
    kernel.execute(
        "import os\n_session_name = os.environ.pop('JPY_SESSION_NAME')\n_ns_session = globals().pop('__session__', None)"
    )
    try:
        complete(kernel, "c6", "df.")
        end = final(kernel, "c6")
    finally:
        kernel.execute("os.environ['JPY_SESSION_NAME'] = _session_name\nif _ns_session is not None: __session__ = _ns_session")
    assert end["status"] == "skipped" and "interactive notebook frontend" in end["message"]
    assert len(provider.requests) == requests


def test_the_offline_demo_model_completes_a_real_column_labelled_as_the_demo(kernel, provider):
    kernel.execute('%config AgentMagics.completion_model = "demo"')
    try:
        complete(kernel, "c5", "df.re")
        end = final(kernel, "c5")
    finally:
        kernel.execute('%config AgentMagics.completion_model = "openai/fake-model"')
    assert end["status"] == "done" and end["text"] == "venue_q3.describe()  # offline demo completion"
    assert "offline demo" in end["model"]
