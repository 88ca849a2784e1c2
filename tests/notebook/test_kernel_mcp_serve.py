"""``%agent serve`` in a real kernel, with the SDK's streamable HTTP client in the test process.

One kernel for the module; the approval tests click as JupyterLab does (a comm message to the
button of the serve cell's panel). The shutdown test runs last: it ends the kernel.
"""

import json

import pytest
from kernel_harness import notebook_kernel
from serve_client import Call, list_tools, served_from, text_of, tool_call

from jupyter_agent.testing.waiting import listening, wait_until_blocking

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-kernel")
    harness = notebook_kernel(folder, notebook_name="served.ipynb")
    harness.execute("answer_value = 4242\norder = []")
    yield harness
    harness.shutdown()


@pytest.fixture(scope="module")
def served(kernel):
    reply = kernel.execute("%agent serve -p ask")
    served = served_from(kernel, reply.msg_id)
    served.cell = reply.msg_id
    return served


def call(served, name, arguments=None, token=None):
    return Call(served.url, token or served.token, tool_call(name, arguments)).start()


def test_with_the_token_the_tools_are_listed_and_a_kernel_variable_comes_back(kernel, served):
    names = Call(served.url, served.token, list_tools).start().wait()
    assert {"variables", "inspect", "python", "notebook_read", "notebook_edit", "notebook_run"} <= set(names)
    assert not {"read", "bash", "write"} & set(names)  # file tools only with --tools
    result = call(served, "variables").wait()
    assert not result.is_error and "answer_value" in text_of(result) and "4242" in text_of(result)


def test_without_the_token_every_request_gets_401(served):
    import httpx2

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": served.token}):
        response = httpx2.post(served.url, json=body, headers={"Accept": "application/json, text/event-stream", **headers})
        assert response.status_code == 401, headers
        assert "bearer token" in response.json()["error"]
    with pytest.raises(ExceptionGroup, match="TaskGroup"):  # the SDK: "Server returned an error response"
        Call(served.url, "not-the-token", list_tools).start().wait()


def test_python_waits_for_the_click_in_the_notebook_then_returns_its_output(kernel, served):
    pending = call(served, "python", {"code": "answer_value += 1\nprint('now', answer_value)"})
    allow = kernel.button(served.cell, "Allow once")
    kernel.wait_for(lambda: "called by mcp over MCP" in kernel.widget_text(served.cell), 20, "the approval naming the client")
    kernel.wait_for(lambda: pending.progress, 20, "a progress notification while waiting")
    assert not pending.done and kernel.evaluate("answer_value") == "4242"  # nothing ran before the click
    assert pending.progress[0] == "waiting for approval in the notebook"
    kernel.click(allow.comm_id)
    result = pending.wait()
    # The namespace diff ends a python result, for an MCP client as for the model.
    assert not result.is_error and text_of(result).strip() == "now 4243\nNamespace: ~ answer_value (int)"
    assert kernel.evaluate("answer_value") == "4243"


def test_a_denied_call_is_an_error_result_and_nothing_runs(kernel, served):
    pending = call(served, "python", {"code": "answer_value = 0"})
    deny = kernel.button(served.cell, "Deny")
    kernel.wait_for(lambda: "answer_value = 0" in kernel.widget_text(served.cell), 20, "the approval bar")
    kernel.click(deny.comm_id)
    result = pending.wait()
    assert result.is_error and "denied by the user" in text_of(result)
    assert kernel.evaluate("answer_value") == "4243"


def test_an_external_call_waits_for_the_running_cell(kernel, served):
    pending = call(served, "python", {"code": "order.append('external')"})
    allow = kernel.button(served.cell, "Allow python for this session")
    kernel.wait_for(lambda: "order.append" in kernel.widget_text(served.cell), 20, "the approval bar")
    cell = kernel.send("import asyncio\norder.append('cell started')\nawait asyncio.sleep(1.5)\norder.append('cell ended')")
    kernel.wait_for(lambda: kernel.of(cell) and any(m["msg_type"] == "status" for m in kernel.of(cell)), 10, "the cell to start")
    kernel.click(allow.comm_id)  # approved while the cell awaits: the call still waits for it
    pending.wait()
    kernel.wait_for(lambda: kernel.is_idle(cell), 20, "the awaiting cell")
    assert kernel.evaluate("order") == "['cell started', 'cell ended', 'external']"
    assert "waiting for the running cell to finish" in pending.progress


def test_what_an_external_call_prints_shows_in_its_card_while_it_runs(kernel, served):
    code = (
        "import pathlib, time\nprint('live line', flush=True)\ndeadline = time.monotonic() + 20\n"
        "while not pathlib.Path('release').exists() and time.monotonic() < deadline:\n    time.sleep(0.02)"
    )
    pending = call(served, "python", {"code": code})
    kernel.wait_for(lambda: "live line" in kernel.widget_text(served.cell), 20, "the output in the card")
    assert not pending.done
    (kernel.folder / "release").touch()
    assert text_of(pending.wait()).strip().splitlines()[0] == "live line"  # then the namespace line


def test_the_kernels_interrupt_stops_an_external_call_into_an_error_result(kernel, served):
    code = "import pathlib, time\nbusy = True\npathlib.Path('busy').touch()\nwhile busy:\n    time.sleep(0.02)"
    pending = call(served, "python", {"code": code})
    kernel.wait_for(lambda: (kernel.folder / "busy").exists(), 20, "the code to run")  # ■ before it would stop nothing
    kernel.interrupt()
    result = pending.wait(30)
    assert result.is_error and "Stopped after" in text_of(result) and "the user interrupted it" in text_of(result)
    assert kernel.evaluate("busy") == "True"  # the kernel lives on, the variable assigned before ■ is kept


def test_every_call_is_a_card_in_the_panel_and_recorded_in_the_serve_session(kernel, served):
    shown = kernel.widget_text(served.cell)
    assert "variables" in shown and "now 4243" in shown
    session_file = kernel.folder / "served.agent" / "serve.jsonl"
    kernel.wait_for(lambda: session_file.read_text().count('"role":"tool_result"') == 6, 10, "the last call's record")
    records = [json.loads(line) for line in session_file.read_text().splitlines()]
    messages = [record["message"] for record in records if record.get("kind") == "message"]
    calls = [block for m in messages if m["role"] == "assistant" for block in m["content"] if block["type"] == "tool_call"]
    results = [m for m in messages if m["role"] == "tool_result"]
    assert [c["name"] for c in calls] == ["variables", "python", "python", "python", "python", "python"]
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]  # each call followed by its result
    assert "denied by the user" in json.dumps(results[2])
    assert all(m["model"] == "mcp" for m in messages if m["role"] == "assistant")  # the client, by its name
    history = kernel.outputs_of(kernel.execute("%agent history -s serve").msg_id)
    assert "mcp called `python` over MCP" in history


def test_serve_stop_closes_the_port_and_a_second_serve_gets_a_new_token(kernel, served):
    assert listening(served.port)
    again = kernel.execute("%agent serve", check=False)
    assert "already serving at " + served.url in kernel.outputs_of(again.msg_id)
    stopped = kernel.outputs_of(kernel.execute("%agent serve stop").msg_id)
    assert "Stopped the MCP server" in stopped and "6 calls served" in stopped
    assert not listening(served.port)
    kernel.wait_for(
        lambda: "Bearer token" not in kernel.outputs_of(served.cell) or _cleared(kernel, served.cell), 20, "the panel's end"
    )
    assert "No MCP server is running" in kernel.outputs_of(kernel.execute("%agent serve stop").msg_id)


def _cleared(kernel, msg_id):
    return any(m["msg_type"] == "clear_output" for m in kernel.of(msg_id))


def test_bad_options_are_usage_errors(kernel):
    for line, message in (
        ("%agent serve --tools nonsense", "unknown tool(s): nonsense"),
        ("%agent serve --tools none", "needs at least one tool"),
        ("%agent serve restart", "takes options, or 'stop'"),
        ("%agent serve -p sometimes", "invalid choice: 'sometimes'"),
        ("%agent serve --port 70000", "from 0 to 65535"),
    ):
        reply = kernel.execute(line, check=False)
        assert not reply.ok and message in kernel.outputs_of(reply.msg_id), line


def test_file_tools_only_when_asked(kernel):
    served = served_from(kernel, kernel.execute("%agent serve -p yolo --tools variables,read,glob").msg_id)
    try:
        assert Call(served.url, served.token, list_tools).start().wait() == ["variables", "read", "glob"]
    finally:
        kernel.execute("%agent serve stop")
    assert not listening(served.port)


def test_zz_a_kernel_shutdown_leaves_no_listener(kernel):
    served = served_from(kernel, kernel.execute("%agent serve -p readonly").msg_id)
    assert listening(served.port)
    kernel.shutdown()
    wait_until_blocking(lambda: not listening(served.port), 20, "the server to stop listening", every=0.1)
    assert not listening(served.port)
