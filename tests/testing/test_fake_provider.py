"""The fake provider over plain HTTP (no litellm): SSE framing, scripts, errors, disconnects, CLI."""

import http.client
import json
import os
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from jupyter_agent.testing.fake_provider import (
    FakeProvider,
    call,
    dropped,
    echo_responder,
    hanging,
    http_error,
    malformed,
    reasoning,
    text,
    tool_calls,
    usage,
)
from jupyter_agent.testing.tool_pairing import DUPLICATE_TOOL_CALL_ID, ORPHAN_TOOL_MESSAGE, UNANSWERED_TOOL_CALLS


def post(provider, body, timeout=5.0):
    connection = http.client.HTTPConnection("127.0.0.1", provider.port, timeout=timeout)
    connection.request(
        "POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json", "Authorization": "Bearer k"}
    )
    return connection, connection.getresponse()


def sse_payloads(response):
    """The ``data:`` payloads of an SSE body, in order."""
    return [line[len("data: ") :] for line in response.read().decode().split("\n") if line.startswith("data: ")]


STREAM = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def test_text_streams_as_sse_chunks_ending_with_done_and_records_the_request():
    with FakeProvider([text("Hel", "lo", usage=usage(12, 3, cached_tokens=4))]) as provider:
        _, response = post(provider, STREAM)
        assert response.status == 200
        assert response.getheader("Content-Type") == "text/event-stream"
        payloads = sse_payloads(response)
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(payload) for payload in payloads[:-1]]
    assert all(chunk["object"] == "chat.completion.chunk" and chunk["model"] == "fake-model" for chunk in chunks)
    deltas = [chunk["choices"][0]["delta"].get("content") for chunk in chunks if chunk["choices"]]
    assert deltas == ["", "Hel", "lo", None]
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {
        "prompt_tokens": 12,
        "completion_tokens": 3,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 4},
    }
    assert provider.requests == [STREAM]
    assert provider.request_headers[0]["authorization"] == "Bearer k"


def test_tool_call_arguments_are_split_across_chunks_and_reassemble_exactly():
    arguments = {"path": "data.csv", "n": 5, "nested": {"x": [1, 2]}}
    with FakeProvider(
        [tool_calls(call("read", arguments, id="call_a", pieces=4), call("run", {"code": "1+1"}), text="pre")]
    ) as provider:
        _, response = post(provider, STREAM)
        chunks = [json.loads(payload) for payload in sse_payloads(response)[:-1]]
    parts = [part for chunk in chunks if chunk["choices"] for part in chunk["choices"][0]["delta"].get("tool_calls", [])]
    first = [part for part in parts if part["index"] == 0]
    assert first[0]["id"] == "call_a" and first[0]["function"]["name"] == "read"
    fragments = [part["function"]["arguments"] for part in first]
    assert len([fragment for fragment in fragments if fragment]) == 4
    assert json.loads("".join(fragments)) == arguments
    assert {part["index"] for part in parts} == {0, 1}
    assert chunks[0]["choices"][0]["delta"]["content"] == "pre"
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "tool_calls"


def test_reasoning_sends_reasoning_content_signature_and_redacted_blocks():
    with FakeProvider([reasoning(["a", "b"], "done", signature="sig", redacted="opaque")]) as provider:
        _, response = post(provider, STREAM)
        deltas = [json.loads(p)["choices"][0]["delta"] for p in sse_payloads(response)[:-1] if json.loads(p)["choices"]]
    assert deltas[1] == {"thinking_blocks": [{"type": "redacted_thinking", "data": "opaque"}]}
    assert [d.get("reasoning_content") for d in deltas[2:4]] == ["a", "b"]
    assert deltas[4]["thinking_blocks"] == [{"type": "thinking", "thinking": "", "signature": "sig"}]
    assert deltas[5] == {"content": "done"}


def test_http_error_has_the_status_code_and_openai_error_json():
    with FakeProvider([http_error(429, "Rate limit reached", "requests", "rate_limit_exceeded")]) as provider:
        _, response = post(provider, STREAM)
        body = json.loads(response.read())
    assert response.status == 429
    assert body == {"error": {"message": "Rate limit reached", "type": "requests", "param": None, "code": "rate_limit_exceeded"}}


def assistant_calling(*ids):
    calls = [{"id": i, "type": "function", "function": {"name": "t", "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def tool_message(call_id):
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


@pytest.mark.parametrize(
    "messages, expected",
    [
        ([{"role": "user", "content": "hi"}, tool_message("c1")], ORPHAN_TOOL_MESSAGE),
        ([assistant_calling("c1"), tool_message("c2")], ORPHAN_TOOL_MESSAGE),
        (
            [assistant_calling("c1", "c2"), tool_message("c1"), {"role": "user", "content": "x"}],
            UNANSWERED_TOOL_CALLS.format(ids="c2"),
        ),
        (
            [assistant_calling("c1"), tool_message("c1"), assistant_calling("c1"), tool_message("c1")],
            DUPLICATE_TOOL_CALL_ID.format(id="c1"),
        ),
    ],
)
def test_requests_with_broken_tool_pairing_are_refused_as_openai_refuses_them(messages, expected):
    with FakeProvider([text("never sent")]) as provider:
        _, response = post(provider, {**STREAM, "messages": messages})
        body = json.loads(response.read())
        assert response.status == 400 and body["error"]["message"] == expected
        _, valid = post(provider, {**STREAM, "messages": [assistant_calling("c1"), tool_message("c1")]})
        assert valid.status == 200


def test_an_exhausted_script_answers_500_and_a_responder_sees_the_request_body():
    seen = []

    def responder(body):
        seen.append(body["messages"][-1]["content"])
        return text("echo")

    with FakeProvider([responder]) as provider:
        _, first = post(provider, STREAM)
        assert sse_payloads(first)[1:2] and seen == ["hi"]
        _, second = post(provider, STREAM)
        assert second.status == 500
        assert "no scripted response left" in json.loads(second.read())["error"]["message"]


def test_dropped_connection_cuts_the_chunked_body_short():
    with FakeProvider([dropped("Hel", "lo")]) as provider:
        _, response = post(provider, STREAM)
        with pytest.raises(http.client.IncompleteRead) as caught:
            response.read()
    assert b"[DONE]" not in caught.value.partial
    assert b'"content": "lo"' in caught.value.partial


def test_malformed_chunk_is_sent_raw_between_valid_chunks():
    with FakeProvider([malformed("a", payload="{not json")]) as provider:
        _, response = post(provider, STREAM)
        payloads = sse_payloads(response)
    assert payloads[2] == "{not json"
    assert payloads[-1] == "[DONE]"
    with pytest.raises(ValueError):
        json.loads(payloads[2])


def test_server_sees_a_client_disconnect_at_once_while_hanging():
    with FakeProvider([hanging("partial")]) as provider:
        connection, response = post(provider, STREAM)
        response.fp.readline()  # the first chunk header arrived: the server is streaming
        closed_at = time.monotonic()
        response.close()
        connection.close()
        seen_at = provider.wait_for_disconnect(timeout=5)
    assert seen_at is not None
    assert seen_at - closed_at < 0.1


def test_delay_paces_chunks():
    with FakeProvider([text("a", "b", "c", delay=0.05)]) as provider:
        started = time.monotonic()
        _, response = post(provider, STREAM)
        sse_payloads(response)
    assert time.monotonic() - started >= 0.05 * 6  # role chunk, 3 pieces, finish, usage


def test_models_route_lists_the_configured_models_and_unknown_routes_404():
    with FakeProvider(models=["a", "b"]) as provider:
        connection = http.client.HTTPConnection("127.0.0.1", provider.port, timeout=5)
        connection.request("GET", "/v1/models")
        listing = json.loads(connection.getresponse().read())
        connection = http.client.HTTPConnection("127.0.0.1", provider.port, timeout=5)
        connection.request("POST", "/v1/embeddings", "{}")
        missing = connection.getresponse()
    assert [model["id"] for model in listing["data"]] == ["a", "b"]
    assert missing.status == 404


def test_non_streaming_requests_are_refused_clearly():
    with FakeProvider([text("x")]) as provider:
        _, response = post(provider, {**STREAM, "stream": False})
        assert response.status == 400
        assert "only stream=true" in json.loads(response.read())["error"]["message"]


def test_port_is_unavailable_before_start_and_the_server_listens_on_loopback_only():
    provider = FakeProvider()
    with pytest.raises(RuntimeError, match="FakeProvider is not running"):
        provider.port  # noqa: B018 - reading the property is the test
    with provider:
        assert provider.api_base.startswith("http://127.0.0.1:")
        assert provider._server.server_address[0] == "127.0.0.1"


def test_echo_responder_answers_with_the_last_user_message():
    response = echo_responder({"messages": [{"role": "user", "content": [{"type": "text", "text": "two words"}]}]})
    pieces = [chunk["choices"][0]["delta"].get("content") for chunk in response.chunks if chunk["choices"]]
    assert "".join(piece for piece in pieces if piece) == "You said: two words"


def test_cli_serves_a_script_file_until_terminated(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"text": ["Hi", " there"]},
                {"tool_calls": [{"name": "python", "arguments": {"code": "1+1"}}]},
                {"error": 401, "message": "bad key"},
            ]
        )
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_agent.testing.fake_provider", "--port", "0", "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = server.stdout.readline()
        port = int(line.rsplit(":", 1)[-1].split("/")[0])
        statuses, bodies = [], []
        for _ in range(3):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("POST", "/v1/chat/completions", json.dumps(STREAM))
            response = connection.getresponse()
            statuses.append(response.status)
            bodies.append(response.read().decode())
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert line.startswith("fake provider listening on http://127.0.0.1:")
    assert statuses == [200, 200, 401]
    assert '"content": " there"' in bodies[0]
    assert '"name": "python"' in bodies[1]
    assert json.loads(bodies[2])["error"]["message"] == "bad key"


def test_on_received_is_called_once_a_body_is_read_before_the_provider_parses_or_answers_it():
    seen = []

    def answer(body):
        seen.append(("answered", len(provider.requests)))
        return text("ok")

    def received():
        seen.append(("received", len(provider.requests)))

    with FakeProvider(fallback=answer, on_received=received) as provider:
        _, response = post(provider, STREAM)
        assert response.status == 200
        sse_payloads(response)
        _, response = post(provider, {"not": "a chat request"} | {"stream": True}, timeout=5.0)
        response.read()
    # Before the first request was recorded (parsed), and for the second before it failed to answer.
    assert seen[:2] == [("received", 0), ("answered", 1)]
    assert seen[2] == ("received", 1)


def test_on_chunk_is_called_with_each_chunks_index_once_it_was_written():
    written = []
    response = replace(text("a", "b", delay=0.01), on_chunk=lambda index: written.append((index, time.monotonic())))
    with FakeProvider([response]) as provider:
        started = time.monotonic()
        _, answer = post(provider, STREAM)
        payloads = sse_payloads(answer)
    assert [index for index, _ in written] == list(range(len(payloads) - 1))  # every chunk but [DONE]
    assert all(at - started >= 0.01 * (index + 1) for index, at in written)  # each after its delay
