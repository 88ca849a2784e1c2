import asyncio

import pytest
from serve_fakes import Session

from jupyter_agent.features.mcp_server.record import CallRecorder, call_message
from jupyter_agent.messages import TextContent, ToolCall, ToolResultMessage
from jupyter_agent.session import SessionStore
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until

pytestmark = pytest.mark.anyio


def pair(number):
    call = ToolCall(id=f"c{number}", name="python", arguments={"code": f"x = {number}"})
    return call, ToolResultMessage(tool_call_id=call.id, tool_name="python", content=[TextContent(text="ok")])


def test_a_call_is_an_assistant_message_naming_the_client():
    message = call_message("claude-code", pair(1)[0])
    assert message.model == "claude-code" and message.api == "mcp" and message.stop_reason == "tool_use"
    assert message.content[0].text == "claude-code called `python` over MCP." and message.content[1].id == "c1"


async def test_each_call_is_followed_by_its_result_and_a_burst_costs_one_sync(tmp_path, monkeypatch):
    session = Session(tmp_path / "serve.jsonl")
    syncs = []
    monkeypatch.setattr(session.store, "sync", lambda: syncs.append(1))
    recorder = CallRecorder(session)
    for number in range(3):
        recorder.record("claude-code", *pair(number))
    assert session.store.history() == []  # written after the call's answer, not before
    await recorder.drain()
    roles = [(m.role, getattr(m, "tool_call_id", None)) for m in SessionStore(session.path, read_only=True).history()]
    assert roles == [("assistant", None), ("tool_result", "c0"), ("assistant", None), ("tool_result", "c1")] + [
        ("assistant", None),
        ("tool_result", "c2"),
    ]
    assert recorder.recorded == 3 and syncs == [1]


async def test_while_a_turn_holds_the_session_the_pairs_wait_for_it(tmp_path):
    session = Session(tmp_path / "serve.jsonl")
    recorder = CallRecorder(session)
    async with session.lock:
        recorder.record("claude-code", *pair(1))
        recorder.write_pending()
        await assert_quiet_for(0.01, session.store.history, "a write while the turn holds the session")
        assert session.store.history() == []
    await asyncio.wait_for(recorder.drain(), 1)
    assert [m.role for m in session.store.history()] == ["assistant", "tool_result"]


async def test_the_pairs_are_written_a_moment_after_the_call(tmp_path, monkeypatch):
    from jupyter_agent.features.mcp_server import record

    monkeypatch.setattr(record, "WRITE_DELAY", 0.01)
    session = Session(tmp_path / "serve.jsonl")
    recorder = CallRecorder(session)
    recorder.record("claude-code", *pair(1))
    assert session.store.history() == []
    await wait_until(session.store.history, 1, "the delayed write")
    assert [m.role for m in session.store.history()] == ["assistant", "tool_result"]


async def test_a_failed_write_is_reported_once_and_nothing_more_is_written(tmp_path, monkeypatch):
    session = Session(tmp_path / "serve.jsonl")
    errors = []
    recorder = CallRecorder(session, on_error=errors.append)

    def full_disk(message):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session.store, "append", full_disk)
    recorder.record("claude-code", *pair(1))
    recorder.write_pending()
    recorder.record("claude-code", *pair(2))
    recorder.write_pending()
    assert len(errors) == 1 and "no longer recorded in session 'serve'" in errors[0] and "No space left" in errors[0]
    assert recorder.recorded == 0
