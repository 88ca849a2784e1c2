import asyncio

import pytest
from serve_fakes import Renderer, Session, Shell, tools

from jupyter_agent.features.mcp_server import calls as calls_module
from jupyter_agent.features.mcp_server.calls import CANCELLED, WAITING_FOR_APPROVAL, ExternalCalls
from jupyter_agent.features.mcp_server.cell_turns import WAITING_FOR_CELL, CellTurns
from jupyter_agent.features.mcp_server.record import CallRecorder
from jupyter_agent.runtime.permissions import PermissionPolicy
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until

pytestmark = pytest.mark.anyio


def external(tmp_path, mode="ask", answer="once", shell=None, ran=None):
    renderer = Renderer(answer)
    session = Session(tmp_path / "serve.jsonl")
    calls = ExternalCalls(
        tools(ran, shell),
        policy=PermissionPolicy(mode, prompt=renderer.ask),
        emit=renderer.handle,
        recorder=CallRecorder(session),
        cell_turns=CellTurns(shell),
    )
    return calls, renderer, session


def texts(result):
    return [block.text for block in result.content]


async def test_a_read_runs_without_asking_and_is_shown_and_recorded(tmp_path):
    calls, renderer, session = external(tmp_path)
    result = await calls.call("variables", {}, "claude-code")
    assert texts(result) == ["answer: int = 42"] and not result.is_error and renderer.asked == []
    assert renderer.types() == ["tool_call", "tool_result"] and renderer.events[0].tool_call_id == result.tool_call_id
    await calls.recorder.drain()
    assert [m.role for m in session.store.history()] == ["assistant", "tool_result"]


async def test_a_mutation_asks_naming_the_client_and_runs_once_allowed(tmp_path):
    ran = []
    calls, renderer, _ = external(tmp_path, ran=ran)
    result = await calls.call("python", {"code": "x = 1"}, "claude-code")
    [request] = renderer.asked
    assert request.label.startswith("Python, called by claude-code over MCP {") and request.args == {"code": "x = 1"}
    assert renderer.types() == ["tool_call", "approval_request", "approval_response", "tool_result"]
    assert ran == ["x = 1"] and texts(result) == ["ran x = 1"]


async def test_denied_readonly_unknown_and_invalid_calls_are_error_results(tmp_path):
    ran = []
    calls, _, session = external(tmp_path, answer="deny", ran=ran)
    denied = await calls.call("python", {"code": "x = 1"}, "codex")
    assert denied.is_error and "denied by the user" in texts(denied)[0]
    readonly, _, _ = external(tmp_path / "ro", mode="readonly", ran=ran)
    refused = await readonly.call("python", {"code": "x = 2"}, "codex")
    assert refused.is_error and "read-only mode" in texts(refused)[0]
    unknown = await calls.call("bash", {"command": "ls"}, "codex")
    assert unknown.is_error and texts(unknown)[0].startswith("Tool not found: bash.") and "variables, python" in texts(unknown)[0]
    invalid = await calls.call("python", {"cod": "x"}, "codex")
    assert invalid.is_error and 'Validation failed for tool "python"' in texts(invalid)[0]
    assert ran == []
    await calls.recorder.drain()
    assert [m.role for m in session.store.history()].count("tool_result") == 3


async def test_session_trust_covers_later_calls(tmp_path):
    calls, renderer, _ = external(tmp_path, answer="tool")
    await calls.call("python", {"code": "a"}, "claude-code")
    await calls.call("python", {"code": "b"}, "claude-code")
    assert len(renderer.asked) == 1


async def test_while_it_waits_for_a_click_the_client_hears_progress(tmp_path, monkeypatch):
    monkeypatch.setattr(calls_module, "PROGRESS_INTERVAL", 0.01)
    click = asyncio.get_running_loop().create_future()
    calls, _, _ = external(tmp_path, answer=click)
    progress = []

    async def report(count, message):
        progress.append((count, message))

    call = asyncio.ensure_future(calls.call("python", {"code": "x"}, "claude-code", report))
    await wait_until(lambda: len(progress) >= 2, what="progress while the question waits")
    click.set_result("once")
    await asyncio.wait_for(call, 1)
    heard = len(progress)
    assert heard >= 2 and all(message == WAITING_FOR_APPROVAL for _, message in progress)
    assert [count for count, _ in progress] == list(range(1, heard + 1))  # progress only grows
    await assert_quiet_for(0.03, lambda: len(progress) != heard, "progress after the call ran")
    assert len(progress) == heard  # silent once it runs


async def test_python_waits_for_the_running_cell_and_says_so(tmp_path):
    shell, ran = Shell(), []
    calls, _, _ = external(tmp_path, mode="yolo", shell=shell, ran=ran)
    calls.cell_turns.install()
    progress = []

    async def report(count, message):
        progress.append(message)

    shell.events.trigger("pre_run_cell")
    call = asyncio.ensure_future(calls.call("python", {"code": "x"}, "claude-code", report))
    await wait_until(lambda: progress, what="the call saying it waits for the cell")
    await assert_quiet_for(0.02, lambda: ran, "the call running while the cell runs")
    assert ran == [] and progress == [WAITING_FOR_CELL]
    shell.events.trigger("post_run_cell")
    assert texts(await asyncio.wait_for(call, 1)) == ["ran x"]


async def test_a_cancelled_call_voids_its_question_and_is_shown_and_recorded_as_cancelled(tmp_path):
    click = asyncio.get_running_loop().create_future()
    calls, renderer, session = external(tmp_path, answer=click)
    call = asyncio.ensure_future(calls.call("python", {"code": "x"}, "claude-code"))
    await wait_until(lambda: "approval_request" in renderer.types(), what="the question")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert renderer.types() == ["tool_call", "approval_request", "approval_response", "tool_result"]
    assert renderer.events[2].decision == "cancelled" and renderer.events[3].is_error
    await calls.recorder.drain()
    [_, result] = session.store.history()
    assert result.content[0].text == CANCELLED and result.is_error


async def test_python_code_runs_through_the_hosts_code_runner(tmp_path):
    calls, _, _ = external(tmp_path, mode="yolo")
    around = []

    async def run_code(work):
        around.append("before")
        outcome = await work()
        around.append("after")
        return outcome

    calls.run_code = run_code
    await calls.call("variables", {}, "codex")
    assert around == []  # reads never run code
    assert texts(await calls.call("python", {"code": "x"}, "codex")) == ["ran x"] and around == ["before", "after"]
