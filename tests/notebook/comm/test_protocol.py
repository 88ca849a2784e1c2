import re
from pathlib import Path

import pytest

from jupyter_agent.notebook.comm import protocol as p

TS_MIRROR = Path(__file__).resolve().parents[3] / "labextension" / "src" / "protocol.ts"


def test_every_frontend_message_parses():
    assert p.parse_frontend_message({"type": "hello", "version": 1}) == p.Hello(version=1)
    assert p.parse_frontend_message({"type": "stop", "request_id": "r"}) == p.Stop(request_id="r")
    assert p.parse_frontend_message({"type": "steer", "request_id": "r", "text": "go", "session": "main"}) == p.Steer(
        request_id="r", text="go", session="main"
    )
    assert p.parse_frontend_message({"type": "list_sessions", "request_id": "r"}) == p.ListSessions(request_id="r")
    assert p.parse_frontend_message({"type": "open_session", "request_id": "r", "session": "main"}) == p.OpenSession(
        request_id="r", session="main"
    )
    assert p.parse_frontend_message({"type": "materialize_request", "request_id": "r"}) == p.MaterializeRequest(request_id="r")


def test_unknown_fields_are_ignored_so_newer_frontends_still_work():
    message = p.parse_frontend_message({"type": "stop", "request_id": "r", "future_field": [1, 2]})
    assert message == p.Stop(request_id="r")


def test_an_unknown_type_names_the_known_ones_and_keeps_the_request_id():
    with pytest.raises(p.ProtocolError) as caught:
        p.parse_frontend_message({"type": "dance", "request_id": "r7"})
    assert str(caught.value) == (
        "unknown message type 'dance'; this kernel understands hello, stop, steer, "
        "list_sessions, open_session, materialize_request, notebook_reply, complete_request, complete_cancel, "
        "edit_cell, edit_cancel, edit_decision, chat_request, notebook_moved"
    )
    assert caught.value.request_id == "r7"


def test_invalid_fields_say_which_field():
    with pytest.raises(p.ProtocolError) as caught:
        p.parse_frontend_message({"type": "steer", "request_id": "r", "text": ""})
    assert str(caught.value) == "invalid steer message: text: String should have at least 1 character"
    with pytest.raises(p.ProtocolError, match="invalid open_session message: session: Field required"):
        p.parse_frontend_message({"type": "open_session", "request_id": "r"})


def test_a_message_must_be_an_object():
    with pytest.raises(p.ProtocolError, match="a message must be a JSON object, not list"):
        p.parse_frontend_message(["stop"])


def test_kernel_messages_serialize_to_plain_json():
    cell = p.CellSpec(code="x = 1", metadata=p.Provenance(session="main", step=2, model="m"))
    assert p.Materialize(cells=[cell], cell_id="c1").to_json() == {
        "type": "materialize",
        "cell_id": "c1",
        "request_id": None,
        "cells": [{"code": "x = 1", "metadata": {"session": "main", "step": 2, "model": "m"}}],
    }
    assert p.Reply(request_id="r", ok=False, message="no").to_json() == {
        "type": "reply",
        "request_id": "r",
        "ok": False,
        "message": "no",
    }


def test_the_typescript_mirror_speaks_the_same_version_and_types():
    source = TS_MIRROR.read_text()
    assert f"PROTOCOL_VERSION = {p.PROTOCOL_VERSION};" in source
    assert f"TARGET_NAME = '{p.TARGET_NAME}';" in source
    declared = set(re.findall(r"^\s+type: '([a-z_]+)';$", source, flags=re.M))
    kernel_types = {
        "welcome",
        "run_started",
        "run_finished",
        "materialize",
        "sessions",
        "transcript",
        "reply",
        "notebook_request",
        "completion",
        "edit_proposal",
        "chat_started",
        "chat_finished",
        "edit_review",
        "edit_review_done",
    }
    assert declared == set(p.FRONTEND_TYPES) | kernel_types
    for model in (
        p.Welcome,
        p.RunStarted,
        p.RunFinished,
        p.Materialize,
        p.Sessions,
        p.Transcript,
        p.Reply,
        p.NotebookRequest,
        p.Completion,
        p.EditProposal,
        p.ChatStarted,
        p.ChatFinished,
        p.EditReview,
        p.EditReviewDone,
    ):
        assert model.model_fields["type"].default in kernel_types


def test_a_moved_notebook_names_where_it_was():
    message = p.parse_frontend_message(
        {"type": "notebook_moved", "request_id": "m1", "path": "b/New.ipynb", "previous": "Old.ipynb"}
    )
    assert message == p.NotebookMoved(request_id="m1", path="b/New.ipynb", previous="Old.ipynb")
    assert p.parse_frontend_message({"type": "notebook_moved", "path": "New.ipynb"}).previous is None
