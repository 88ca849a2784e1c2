"""The checked-in JSON schemas (the comm protocol's, the panel's) are their declarations' own, and
the kernel's messages follow them (the extension's tests validate their side against the same files)."""

import json
from pathlib import Path

import jsonschema
import pytest
from comm_fakes import FakeComm, hello

from jupyter_agent.notebook.comm import protocol as p
from jupyter_agent.notebook.comm.protocol import TARGET_NAME
from jupyter_agent.notebook.comm.schema import (
    PANEL_SCHEMA_PATH,
    SCHEMA_PATH,
    main,
    panel_schema_text,
    protocol_schema,
    schema_text,
)
from jupyter_agent.notebook.comm.target import AgentCommTarget

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / SCHEMA_PATH).read_text(encoding="utf-8"))


def check(definition, message):
    schema = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{definition}"}
    jsonschema.Draft202012Validator(schema).validate(message)


def test_the_checked_in_schema_is_generated_from_the_models():
    assert (ROOT / SCHEMA_PATH).read_text(encoding="utf-8") == schema_text(), (
        f"{SCHEMA_PATH} is stale: run python -m jupyter_agent.notebook.comm.schema > {SCHEMA_PATH}"
    )
    assert SCHEMA["x-protocol-version"] == p.PROTOCOL_VERSION and SCHEMA["x-target-name"] == TARGET_NAME


def test_the_checked_in_panel_schema_is_generated_from_its_types():
    assert (ROOT / PANEL_SCHEMA_PATH).read_text(encoding="utf-8") == panel_schema_text(), (
        f"{PANEL_SCHEMA_PATH} is stale: run python -m jupyter_agent.notebook.comm.schema panel > {PANEL_SCHEMA_PATH}"
    )


def test_the_command_prints_either_schema_and_refuses_others(capsys):
    assert main([]) == 0 and capsys.readouterr().out == schema_text()
    assert main(["panel"]) == 0 and capsys.readouterr().out == panel_schema_text()
    assert main(["lab"]) == 2
    assert capsys.readouterr().err == "usage: python -m jupyter_agent.notebook.comm.schema [comm|panel]\n"


def kernel_samples():
    cell = p.CellSpec(code="x = 1", metadata=p.Provenance(session="main", step=2, model="demo"))
    return [
        p.Welcome(package_version="0.1.0", runs=[p.RunState(session="main", cell_id="c1")]),
        p.RunStarted(session="main"),
        p.RunFinished(session="main", cell_id="c1", status="completed", steps=3),
        p.Materialize(cells=[cell], cell_id="c1", request_id="r1"),
        p.Sessions(
            request_id="r2",
            folder="/nb/analysis.agent",
            sessions=[p.SessionSummary(name="main", messages=4, last_activity="2026-12-01T10:00:00Z")],
        ),
        p.Transcript(request_id="r3", session="main", markdown="### You\n\nhi"),
        p.Reply(request_id=None, ok=False, message="No agent is running."),
        p.NotebookRequest(
            request_id="r4", action="edit", operation={"op": "replace", "cell_id": "c2", "source": "x = 2", "cell_type": "code"}
        ),
        p.Completion(request_id="r5", text="revenue_q3.sum()", status="streaming", model="openai/gpt-4.1-nano"),
        p.EditProposal(request_id="r6", cell_id="c2", source="df.plot(logy=True)", model="demo"),
        p.ChatStarted(request_id="r7", session="chat", model_id="abc"),
        p.EditReview(request_id="r8", cell_id="c2", op="replace", before="a", after="b"),
        p.EditReviewDone(request_id="r8"),
        p.ChatFinished(request_id="r7", session="chat", bundles=[{"text/markdown": "done", "text/html": "<p>done</p>"}]),
    ]


def test_every_kernel_message_validates_and_each_type_is_covered():
    samples = [message.to_json() for message in kernel_samples()]
    for message in samples:
        check("KernelMessage", message)
    mapping = SCHEMA["$defs"]["KernelMessage"]["discriminator"]["mapping"]
    assert {message["type"] for message in samples} == set(mapping)


def test_what_the_target_really_sends_validates(handler, manager):
    target = AgentCommTarget(handler, manager)
    target.register()
    comm = FakeComm()
    manager.targets[TARGET_NAME](comm, hello())
    target.send_run_started("main", "cell-7")
    comm.receive({"type": "stop", "request_id": "r1"})
    comm.receive({"type": "list_sessions", "request_id": "r2"})
    comm.receive({"type": "nonsense", "request_id": "r3"})
    assert len(comm.sent) >= 4
    for message in comm.sent:
        check("KernelMessage", message)


def test_frontend_messages_validate_and_bad_ones_do_not():
    for message in [
        {"type": "hello", "version": 1},
        {"type": "stop", "request_id": "r", "session": None},
        {"type": "steer", "request_id": "r", "text": "faster"},
        {"type": "list_sessions", "request_id": "r"},
        {"type": "open_session", "request_id": "r", "session": "main"},
        {"type": "materialize_request", "request_id": "r"},
        {"type": "notebook_reply", "request_id": "r", "ok": True, "cells": [], "index": None},
        {"type": "complete_request", "request_id": "r", "prefix": "df.", "suffix": "", "cells_above": ["import x"]},
        {"type": "complete_cancel", "request_id": "r"},
        {"type": "edit_cell", "request_id": "r", "prompt": "log scale", "cell_id": "c2", "source": "df.plot()"},
        {"type": "edit_cancel", "request_id": "r"},
        {"type": "edit_decision", "request_id": "r", "cell_id": "c2", "accepted": True, "before": "a", "after": "b"},
        {"type": "chat_request", "request_id": "r", "prompt": "What is df?", "session": None},
    ]:
        check("FrontendMessage", message)
        p.parse_frontend_message(message)
    with pytest.raises(jsonschema.ValidationError):
        check("FrontendMessage", {"type": "steer", "request_id": "r", "text": ""})
    assert protocol_schema()["$defs"]["Steer"]["properties"]["text"]["minLength"] == 1
