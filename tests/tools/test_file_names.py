"""A file name that is not UTF-8 (a Latin-1 name from an old archive) in a real run recorded by
the session store: every tool result is kept, readable, and valid UTF-8 for the provider."""

import json
import os

import pytest

from jupyter_agent import run_agent
from jupyter_agent.session import SessionStore
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls
from jupyter_agent.tools import coding_tools

pytestmark = pytest.mark.anyio


async def test_a_latin1_file_name_keeps_every_record_and_reaches_the_model_as_utf8(workspace, tmp_path):
    with open(os.path.join(os.fsencode(workspace), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"needle\n")
    model = ScriptedModel(
        [tool_calls(call("glob", {"pattern": "*"}), call("grep", {"pattern": "needle"}), call("list", {})), reply("done")]
    )
    session_file = tmp_path / "session.jsonl"
    store = SessionStore(session_file)
    run = run_agent(model.model("m"), "find files", tools=coding_tools(workspace), stream_fn=model)
    run.add_listener(store.recorder().record)
    result = await run.result()
    store.close()
    assert result.reason == "completed"
    stored = SessionStore(session_file, read_only=True).messages()
    assert [message.role for message in stored] == ["user", "assistant", "tool_result", "tool_result", "tool_result", "assistant"]
    texts = [message.content[0].text for message in stored if message.role == "tool_result"]
    assert texts[0] == "caf\\xe9.txt"
    assert texts[1] == "caf\\xe9.txt:1: needle"
    assert "caf\\xe9.txt (7 B)" in texts[2]
    session_file.read_bytes().decode("utf-8")  # the whole file is valid UTF-8
    second_request = model.requests[1].context.messages
    json.dumps([message.model_dump() for message in second_request], ensure_ascii=False).encode("utf-8")
