"""The completions' direct request to an OpenAI-compatible endpoint, against the fake provider."""

import pytest

from jupyter_agent.features.completion.openai_stream import OpenAICompatibleStream, request_body
from jupyter_agent.messages import UserMessage
from jupyter_agent.model import Context, ErrorEvent, Model, StreamOptions, TextDeltaEvent
from jupyter_agent.testing.fake_provider import FakeProvider, hanging, http_error, text
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio
CONTEXT = Context(system_prompt="Complete.", messages=[UserMessage(content="df.<CURSOR>")])
MODEL = Model(id="fake-model", provider="openai")


@pytest.fixture
def provider():
    with FakeProvider() as fake:
        yield fake


async def events_of(stream):
    return [event async for event in stream]


async def test_the_answer_streams_as_text_deltas_and_ends_done(provider):
    provider.queue(text("revenue", "_q3"))
    direct = OpenAICompatibleStream()
    try:
        options = StreamOptions(max_tokens=128, temperature=0.0, api_key="sk-test-key", api_base=provider.api_base)
        events = await events_of(direct(MODEL, CONTEXT, options))
    finally:
        await direct.aclose()
    assert [event.delta for event in events if isinstance(event, TextDeltaEvent)] == ["revenue", "_q3"]
    assert events[-1].type == "done" and events[-1].message.text == "revenue_q3"
    assert provider.requests[0] == {
        "model": "fake-model",
        "messages": [{"role": "system", "content": "Complete."}, {"role": "user", "content": "df.<CURSOR>"}],
        "stream": True,
        "max_tokens": 128,
        "temperature": 0.0,
    }
    assert provider.request_headers[0]["authorization"] == "Bearer sk-test-key"
    assert provider.request_headers[0]["user-agent"] == "jupyter-agent-completion"


async def test_one_connection_serves_the_requests_that_follow(provider):
    provider.queue(text("a"), text("b"))
    direct = OpenAICompatibleStream()
    options = StreamOptions(api_base=provider.api_base)
    try:
        await events_of(direct(MODEL, CONTEXT, options))
        client = direct._http()
        await events_of(direct(MODEL, CONTEXT, options))
        assert direct._http() is client
    finally:
        await direct.aclose()
    assert len(provider.requests) == 2


async def test_an_http_error_ends_in_an_error_event_with_the_servers_words_and_no_key(provider):
    provider.queue(http_error(401, "Incorrect API key provided: sk-test-secret-key-123."))
    direct = OpenAICompatibleStream()
    try:
        options = StreamOptions(api_key="sk-test-secret-key-123", api_base=provider.api_base)
        events = await events_of(direct(MODEL, CONTEXT, options))
    finally:
        await direct.aclose()
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    message = events[0].error.error_message
    assert message.startswith("openai: HTTP 401 from ") and "Incorrect API key provided" in message
    assert "sk-test-secret-key-123" not in message


async def test_closing_the_stream_closes_the_connection(provider):
    provider.queue(hanging("rev"))
    direct = OpenAICompatibleStream()
    try:
        stream = direct(MODEL, CONTEXT, StreamOptions(api_base=provider.api_base))
        async for event in stream:
            if isinstance(event, TextDeltaEvent):
                break
        await stream.aclose()
        await wait_until(lambda: provider.disconnects, what="the server to see the connection close")
    finally:
        await direct.aclose()


def test_without_an_api_base_it_refuses():
    with pytest.raises(ValueError, match="^an OpenAI-compatible completion needs an api_base$"):
        OpenAICompatibleStream()(MODEL, CONTEXT, StreamOptions())


def test_the_body_names_the_model_without_its_routing_prefix():
    body = request_body(Model(id="openai/llama3", provider="openai"), CONTEXT, StreamOptions())
    assert body["model"] == "llama3" and "max_tokens" not in body and "temperature" not in body
