"""The privacy gate in a real kernel: under ``schema`` a value never reaches the model or an MCP client.

The model is the fake OpenAI-compatible provider over real HTTP through litellm, so "no request to
the model" means no HTTP body the provider received. One kernel per way of asking for ``schema``:
``%config AgentMagics.data_policy`` alone, and a site policy whose ceiling is ``schema`` while the
notebook asks for ``full``.
"""

import json

import pytest
from kernel_harness import notebook_kernel
from serve_client import Call, served_from, text_of, tool_call

from jupyter_agent.testing.fake_provider import FakeProvider, call, text, tool_calls

pytestmark = pytest.mark.kernel

MARKER = "MARKER-7f3a9c"  # a value only the DataFrame (and the saved output) holds
SECRET = "sk-test-privacy-0123456789abcdef"
FIRST_TURN_TIMEOUT = 120  # the first request waits for litellm's import in the kernel

SAVED = {
    "cells": [
        {
            "id": "load",
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": "df",
            "outputs": [
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": f"          name  v\n0  {MARKER}  1"},
                },
            ],
        },
        {
            "id": "keyed",
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "source": "print(key)",
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": f"the key is {SECRET}\n"},
            ],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


@pytest.fixture(scope="module", params=["config", "site ceiling"])
def kernel(request, tmp_path_factory, provider):
    folder = tmp_path_factory.mktemp("privacy")
    env = {}
    if request.param == "site ceiling":
        site = folder / "site.json"
        site.write_text(json.dumps({"data_policy": {"ceiling": "schema"}}))
        env["JUPYTER_AGENT_SITE_CONFIG"] = str(site)
    harness = notebook_kernel(folder, model="", notebook_name="private.ipynb", env=env)
    (folder / "private.ipynb").write_text(json.dumps(SAVED))
    policy = "schema" if request.param == "config" else "full"  # the site's ceiling lowers "full" to "schema"
    harness.execute(
        f'%config AgentMagics.model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        f'%config AgentMagics.api_key = "{SECRET}"\n'
        f'%config AgentMagics.data_policy = "{policy}"\n'
        f"import pandas as pd\n"
        f"df = pd.DataFrame({{'name': ['{MARKER}'] * 3, 'v': [1, 2, 3]}})"
    )
    harness.policy_source = request.param
    yield harness
    harness.shutdown()


def sent(provider, start):
    """Every request body the provider received since ``start``, as one string."""
    return "\n".join(json.dumps(body) for body in provider.requests[start:])


def test_no_value_reaches_the_model_while_the_users_cards_show_them(kernel, provider):
    start = len(provider.requests)
    provider.queue(
        tool_calls(call("python", {"code": "print(df)"})),
        tool_calls(call("python", {"code": "raise ValueError(df.name[0])"})),
        tool_calls(call("notebook_read", {"cell_ids": ["load"]})),
        text("Done."),
    )
    msg_id, reply = kernel.agent_cell("-s private -p yolo", "What is in @cell:load and in df?")
    assert reply.ok
    kernel.wait_turn("private", timeout=FIRST_TURN_TIMEOUT)
    assert kernel.evaluate("last_turn('private').result.reason") == "'completed'"
    bodies = sent(provider, start)
    assert len(provider.requests) - start == 4
    assert MARKER not in bodies
    # The @cell mention was attached (as structure), not left as text.
    assert "@cell:load:" in bodies and "the saved notebook has no such cell" not in bodies
    # The model got the structure: the frame's shape and columns, the error's type, a withheld note.
    assert "DataFrame 3 rows × 2 columns" in bodies or "[printed:" in bodies
    assert "ValueError (message withheld" in bodies and "Values withheld (data_policy 'schema')" in bodies
    if kernel.policy_source == "site ceiling":
        assert "only an administrator can allow more" in bodies
    shown = kernel.widget_text(msg_id)
    assert shown.count(MARKER) >= 3  # print(df), the traceback and the saved output, each in its card
    assert "withheld" in shown
    session_file = (kernel.folder / "private.agent" / "private.jsonl").read_text()
    assert SECRET not in session_file


def test_an_external_agent_gets_no_value_from_serve(kernel):
    reply = kernel.execute("%agent serve -p yolo -s served")
    served = served_from(kernel, reply.msg_id)
    try:
        result = Call(served.url, served.token, tool_call("python", {"code": "print(df)\ndf"})).start().wait()
        read = Call(served.url, served.token, tool_call("notebook_read", {"cell_ids": ["load"]})).start().wait()
        for answer in (result, read):
            assert not answer.is_error and MARKER not in text_of(answer)
        assert "DataFrame 3 rows × 2 columns" in text_of(result)
        kernel.wait_for(lambda: MARKER in kernel.widget_text(reply.msg_id), 20, "the serve card showing the output")
    finally:
        kernel.execute("%agent serve stop")


def test_a_saved_output_holding_the_provider_key_reaches_the_model_redacted(kernel, provider):
    if kernel.policy_source != "config":
        pytest.skip("the site's schema ceiling withholds the output whole; redaction is tested under 'full'")
    kernel.execute('%config AgentMagics.data_policy = "full"')  # values pass: only redaction stands between
    start = len(provider.requests)
    provider.queue(tool_calls(call("notebook_read", {"cell_ids": ["keyed"]})), text("Read it."))
    kernel.agent_cell("-s keyed", "Read the keyed cell.")
    kernel.wait_turn("keyed", timeout=FIRST_TURN_TIMEOUT)
    assert SECRET not in sent(provider, start) and SECRET[:12] not in sent(provider, start)
    assert "the key is [redacted:" in sent(provider, start)
    assert provider.request_headers[-1]["authorization"] == f"Bearer {SECRET}"  # the key still authenticates
    kernel.execute('%config AgentMagics.data_policy = "schema"')
