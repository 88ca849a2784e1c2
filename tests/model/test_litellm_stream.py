"""End to end: ``run_agent_loop`` + ``litellm_stream`` + the fake provider, over real HTTP."""

import base64
import json
import socket
import time

import anyio
import pytest
from pydantic import BaseModel

from jupyter_agent import (
    AbortController,
    AgentLoopError,
    AgentLoopOptions,
    AgentTool,
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    ModelCost,
    RunCancelled,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    run_agent_loop,
)
from jupyter_agent.model.catalog import price_rates
from jupyter_agent.model.litellm_stream import REQUEST_ABORTED, litellm_stream
from jupyter_agent.testing.fake_provider import (
    call,
    dropped,
    hanging,
    http_error,
    malformed,
    reasoning,
    text,
    tool_calls,
    usage,
)

pytestmark = pytest.mark.anyio

PIXEL = base64.b64encode(b"\x89PNG fake pixel").decode()


class ReadArgs(BaseModel):
    path: str
    n: int = 1


def read_tool(log=None, image=False):
    async def execute(args, signal):
        if log is not None:
            log.append((args.path, args.n))
        blocks = [TextContent(text=f"{args.path}: {args.n} rows")]
        return blocks + ([ImageContent(data=PIXEL, mime_type="image/png")] if image else [])

    return AgentTool(name="read", description="Read rows of a file", parameters=ReadArgs, execute=execute)


class Events(list):
    def __call__(self, event):
        self.append(event)

    def stream_types(self):
        return [e.assistant_message_event.type for e in self if e.type == "message_update"]


async def run(model, prompt, history, events=None, tools=(), **options):
    loop_options = AgentLoopOptions(model=model, stream_fn=litellm_stream, tools=list(tools), **options)
    return await run_agent_loop(prompt, history, loop_options, events)


async def test_a_text_answer_streams_start_deltas_end_and_done(fake_provider, fake_model):
    fake_provider.queue(text("Hel", "lo", " world"))
    events, history = Events(), []
    message = await run(fake_model, "hi", history, events)
    assert message.text == "Hello world"
    assert message.stop_reason == "stop"
    assert (message.provider, message.model, message.api) == ("openai", "fake-model", "litellm")
    assert events.stream_types() == ["text_start", "text_delta", "text_delta", "text_delta", "text_end"]
    deltas = [e.assistant_message_event for e in events if e.type == "message_update"]
    assert [d.delta for d in deltas[1:4]] == ["Hel", "lo", " world"]
    assert deltas[-1].content == "Hello world" and {d.content_index for d in deltas} == {0}
    assert [e.type for e in events][:2] == ["message_start", "message_end"]  # the user message
    assert history == [history[0], message] and history[1] is not deltas[-1].partial
    assert fake_provider.requests[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert fake_provider.requests[0]["stream_options"] == {"include_usage": True}


async def test_partials_are_snapshots_owned_by_each_event(fake_provider, fake_model):
    fake_provider.queue(text("a", "b", "c"))
    events = Events()
    message = await run(fake_model, "hi", [], events)
    partials = [e.assistant_message_event.partial for e in events if e.type == "message_update"]
    assert [p.text for p in partials] == ["", "a", "ab", "abc", "abc"]
    assert len({id(p) for p in partials}) == len(partials)
    assert len({id(p.content[0]) for p in partials}) == len(partials)
    partials[-1].content[0].text = "changed"
    assert message.text == "abc" and partials[-2].text == "abc"


async def test_two_tool_calls_then_an_answer_with_arguments_reassembled_exactly(fake_provider, fake_model):
    first = {"path": "données/ventes.csv", "n": 12}
    fake_provider.queue(
        tool_calls(call("read", first, id="call_a", pieces=5), call("read", {"path": "b.csv"}, id="call_b"), text="Reading."),
        text("Both read."),
    )
    log, events, history = [], Events(), []
    message = await run(fake_model, "compare", history, events, tools=[read_tool(log)], system_prompt="Be brief.")
    assert message.text == "Both read."
    assert log == [("données/ventes.csv", 12), ("b.csv", 1)]
    calls = history[1].tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [("call_a", "read", first), ("call_b", "read", {"path": "b.csv"})]
    assert history[1].stop_reason == "tool_use"
    types = events.stream_types()
    assert types[:3] == ["text_start", "text_delta", "text_end"]
    assert types.count("tool_call_start") == 2 and types.count("tool_call_end") == 2
    call_deltas = [
        e.assistant_message_event
        for e in events
        if e.type == "message_update" and e.assistant_message_event.type == "tool_call_delta"
    ]
    assert "".join(d.delta for d in call_deltas if d.content_index == 1) == json.dumps(first)
    # The second request carries the tool schemas and the replayed history.
    second = fake_provider.requests[1]
    schema = {key: value for key, value in ReadArgs.model_json_schema().items() if key != "title"}
    assert second["tools"] == [
        {"type": "function", "function": {"name": "read", "description": "Read rows of a file", "parameters": schema}}
    ]
    system, user, assistant, result_a, result_b = second["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user == {"role": "user", "content": "compare"}
    assert assistant["content"] == "Reading."
    assert [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]] == [
        ("call_a", "read", first),
        ("call_b", "read", {"path": "b.csv"}),
    ]
    assert (result_a["role"], result_a["tool_call_id"], result_a["content"]) == ("tool", "call_a", "données/ventes.csv: 12 rows")
    assert (result_b["tool_call_id"], result_b["content"]) == ("call_b", "b.csv: 1 rows")


async def test_a_repeated_call_id_is_made_unique_and_every_request_pairs(fake_provider, fake_model):
    # Some servers number calls per response: "call_0" in one response and again in the next.
    fake_provider.queue(
        tool_calls(call("read", {"path": "a"}, id="call_0"), call("read", {"path": "b"}, id="call_0")),
        tool_calls(call("read", {"path": "c"}, id="call_0")),
        text("Done."),
    )
    log, history = [], []
    message = await run(fake_model, "go", history, tools=[read_tool(log)])
    assert message.text == "Done." and log == [("a", 1), ("b", 1), ("c", 1)]
    ids = [call.id for m in history if m.role == "assistant" for call in m.tool_calls]
    assert ids == ["call_0", "call_0_2", "call_0_3"]
    assert [m.tool_call_id for m in history if m.role == "tool_result"] == ids
    third = fake_provider.requests[2]["messages"]
    assert [m["content"] for m in third if m["role"] == "tool"] == ["a: 1 rows", "b: 1 rows", "c: 1 rows"]


async def test_a_resumed_history_with_orphan_results_is_accepted_by_a_strict_provider(fake_provider, fake_model):
    # The assistant line that made these calls was damaged and skipped on load.
    history = [
        UserMessage(content="read a"),
        ToolResultMessage(tool_call_id="call_lost", tool_name="read", content=[TextContent(text="a: 1 rows")]),
        AssistantMessage(content=[ToolCall(id="call_x", name="read", arguments={"path": "b"})], stop_reason="tool_use"),
        ToolResultMessage(tool_call_id="call_x", tool_name="read", content=[TextContent(text="b: 1 rows")]),
        ToolResultMessage(tool_call_id="call_x", tool_name="read", content=[TextContent(text="again")]),
    ]
    fake_provider.queue(text("Fine."))
    message = await run(fake_model, "continue", history)
    assert message.text == "Fine."
    sent = fake_provider.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[2]["content"] == "b: 1 rows"


async def test_tool_result_images_follow_as_a_user_message_for_openai(fake_provider, fake_model):
    vision = fake_model.model_copy(update={"input": ["text", "image"]})
    fake_provider.queue(tool_calls(call("read", {"path": "plot.png"}, id="call_p")), text("A plot."))
    await run(vision, "look", [], tools=[read_tool(image=True)])
    messages = fake_provider.requests[1]["messages"]
    assert messages[2] == {"role": "tool", "tool_call_id": "call_p", "content": "plot.png: 1 rows"}
    assert messages[3]["role"] == "user"
    assert messages[3]["content"][1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}}


async def test_reasoning_streams_as_thinking_and_keeps_the_signature_for_replay(fake_provider, fake_model):
    fake_provider.queue(reasoning(["Let me", " think."], ["Answer", "."], signature="sig-1"), text("Again."))
    events, history = Events(), []
    message = await run(fake_model, "q", history, events)
    assert events.stream_types() == [
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
    ]
    assert message.content == [ThinkingContent(thinking="Let me think.", thinking_signature="sig-1"), TextContent(text="Answer.")]
    thinking_end = [e.assistant_message_event for e in events if e.type == "message_update"][3]
    assert thinking_end.content == "Let me think." and thinking_end.content_index == 0
    await run(fake_model, "more", history)
    replayed = fake_provider.requests[1]["messages"][1]
    assert replayed["content"] == "Answer."
    assert replayed["thinking_blocks"] == [{"type": "thinking", "thinking": "Let me think.", "signature": "sig-1"}]


async def test_redacted_thinking_is_kept_as_its_own_block(fake_provider, fake_model):
    fake_provider.queue(reasoning("visible", "ok", redacted="opaque-payload"))
    message = await run(fake_model, "q", [])
    assert message.content == [
        ThinkingContent(thinking="", thinking_signature="opaque-payload", redacted=True),
        ThinkingContent(thinking="visible"),
        TextContent(text="ok"),
    ]


async def test_usage_and_cost_for_a_priced_model(fake_provider):
    priced = Model(id="gpt-4o-mini", provider="openai", base_url=fake_provider.api_base)
    fake_provider.queue(text("x", usage=usage(1000, 500, cached_tokens=200)))
    message = await run(priced, "hi", [])
    rates = price_rates("openai/gpt-4o-mini")
    assert rates is not None and rates.input > 0 and rates.output > 0
    used = message.usage
    assert (used.input, used.output, used.cache_read, used.cache_write, used.total_tokens) == (800, 500, 200, 0, 1500)
    assert used.cost.input == pytest.approx(800 * rates.input / 1e6)
    assert used.cost.output == pytest.approx(500 * rates.output / 1e6)
    assert used.cost.cache_read == pytest.approx(200 * (rates.cache_read or rates.input) / 1e6)
    assert used.cost.total == pytest.approx(used.cost.input + used.cost.output + used.cost.cache_read) and used.cost.total > 0


async def test_an_unpriced_model_has_usage_and_zero_cost(fake_provider, fake_model):
    fake_provider.queue(text("x", usage=usage(300, 20, cache_write_tokens=100)))
    message = await run(fake_model, "hi", [])
    assert (message.usage.input, message.usage.output, message.usage.cache_write) == (200, 20, 100)
    assert message.usage.cost.total == 0.0


async def test_the_models_own_rates_win_over_the_price_map(fake_provider):
    own = Model(id="gpt-4o-mini", base_url=fake_provider.api_base, cost=ModelCost(input=1.0, output=2.0))
    fake_provider.queue(text("x", usage=usage(1000, 1000)))
    message = await run(own, "hi", [])
    assert message.usage.cost.total == pytest.approx(1000 * 1.0 / 1e6 + 1000 * 2.0 / 1e6)


ERRORS = [
    (
        http_error(401, "Incorrect API key provided", code="invalid_api_key"),
        "openai: authentication failed (401): Incorrect API key provided",
    ),
    (
        http_error(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded"),
        "openai: rate limited (429): Rate limit reached for requests",
    ),
    (
        http_error(
            400,
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens.",
            code="context_length_exceeded",
        ),
        "openai: context window exceeded (400): This model's maximum context length is 128000 tokens. "
        "However, your messages resulted in 200000 tokens.",
    ),
    (http_error(400, "Invalid value for 'temperature'"), "openai: bad request (400): Invalid value for 'temperature'"),
    (http_error(500, "The server had an error", "server_error"), "openai: server error (500): The server had an error"),
    (dropped("Hel", "lo"), "openai: connection lost mid-stream: "),
    (malformed("Hel", "lo"), "openai: malformed response chunk: Expecting"),
]


@pytest.mark.parametrize("response, expected", ERRORS, ids=["401", "429", "context", "400", "500", "dropped", "malformed"])
async def test_provider_errors_end_the_loop_readably_and_history_stays_valid(fake_provider, fake_model, response, expected):
    fake_provider.queue(response, text("Recovered."))
    history = []
    with pytest.raises(AgentLoopError) as caught:
        await run(fake_model, "hi", history)
    assert str(caught.value).startswith(expected)
    failed = history[-1]
    assert (failed.stop_reason, failed.error_message, failed.provider) == ("error", str(caught.value), "openai")
    assert len(fake_provider.requests) == 1  # no hidden SDK retry
    message = await run(fake_model, "again", history)
    assert message.text == "Recovered."
    assert fake_provider.requests[1]["messages"] == [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}]


async def test_a_dropped_stream_keeps_what_arrived_in_the_failed_message(fake_provider, fake_model):
    fake_provider.queue(dropped("Hel", "lo"))
    history = []
    with pytest.raises(AgentLoopError):
        await run(fake_model, "hi", history)
    assert history[-1].text == "Hello"


@pytest.mark.timeout(30)
async def test_a_provider_that_stops_sending_ends_the_step_after_the_idle_timeout(fake_provider, fake_model):
    fake_provider.queue(hanging("Hel", "lo"), text("Recovered."))
    history = []
    started = time.monotonic()
    with pytest.raises(AgentLoopError, match=r"^openai: no data from the provider for 0\.3 s$"):
        await run(fake_model, "hi", history, stream_options=StreamOptions(idle_timeout=0.3))
    assert time.monotonic() - started < 10  # bounded: without the timeout this waits forever
    assert fake_provider.wait_for_disconnect() is not None  # the stalled connection was closed
    failed = history[-1]
    assert (failed.stop_reason, failed.text) == ("error", "Hello")
    message = await run(fake_model, "again", history, stream_options=StreamOptions(idle_timeout=0.3))
    assert message.text == "Recovered."
    assert fake_provider.requests[1]["messages"] == [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}]


async def test_slow_but_steady_chunks_are_not_a_stall(fake_provider, fake_model):
    # 8 chunks 0.1 s apart: the response takes longer than the bound, no gap does.
    fake_provider.queue(text(*"abcdef", delay=0.1))
    message = await run(fake_model, "hi", [], stream_options=StreamOptions(idle_timeout=0.4))
    assert message.text == "abcdef"


async def test_an_unreachable_server_is_a_connection_failure(litellm):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = Model(id="fake-model", base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(AgentLoopError, match=r"^openai: connection failed: "):
        await run(model, "hi", [])


async def test_abort_mid_stream_closes_the_connection_within_100ms(fake_provider, fake_model):
    fake_provider.queue(hanging("Hel", "lo"))
    controller, aborted_at = AbortController(), []

    def listener(event):
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta" and not aborted_at:
            aborted_at.append(time.monotonic())
            controller.abort()

    with pytest.raises(RunCancelled):
        await run_agent_loop("hi", [], AgentLoopOptions(model=fake_model, stream_fn=litellm_stream), listener, controller.signal)
    seen_at = await anyio.to_thread.run_sync(fake_provider.wait_for_disconnect, 1, 5.0)
    assert seen_at is not None
    assert seen_at - aborted_at[0] < 0.1


async def test_closing_the_stream_ends_it_aborted_with_what_arrived(fake_provider, fake_model):
    fake_provider.queue(hanging("Hel", "lo"))
    stream = litellm_stream(fake_model, Context(messages=[UserMessage(content="hi")]))
    async for event in stream:
        if event.type == "text_delta" and event.partial.text == "Hello":
            break
    closed_at = time.monotonic()
    await stream.aclose()
    with anyio.fail_after(5):
        result = await stream.result()
    assert (result.stop_reason, result.error_message, result.text) == ("aborted", REQUEST_ABORTED, "Hello")
    seen_at = await anyio.to_thread.run_sync(fake_provider.wait_for_disconnect, 1, 5.0)
    assert seen_at is not None and seen_at - closed_at < 0.1


async def test_stream_options_reach_the_provider(fake_provider):
    elsewhere = Model(id="fake-model", base_url="http://127.0.0.1:9/v1")  # replaced by the option's api_base
    fake_provider.queue(text("ok"))
    options = StreamOptions(
        api_key="sk-test",
        api_base=fake_provider.api_base,
        max_tokens=50,
        temperature=0.2,
        tool_choice="read",
        extra={"top_p": 0.5},
    )
    await run(elsewhere, "hi", [], tools=[read_tool()], stream_options=options)
    body = fake_provider.requests[0]
    assert (body["max_tokens"], body["temperature"], body["top_p"]) == (50, 0.2, 0.5)
    assert body["tool_choice"] == {"type": "function", "function": {"name": "read"}}
    assert fake_provider.request_headers[0]["authorization"] == "Bearer sk-test"


async def test_a_length_stop_is_reported_as_length(fake_provider, fake_model):
    fake_provider.queue(text("cut", finish_reason="length"))
    with pytest.raises(AgentLoopError, match=r"truncated \(length\)"):
        await run(fake_model, "hi", [])


async def test_a_call_without_tools_sends_no_tools_and_no_tool_choice(fake_provider, fake_model):
    fake_provider.queue(text("ok"))
    await run(fake_model, "hi", [], stream_options=StreamOptions(tool_choice="auto"))
    assert "tools" not in fake_provider.requests[0] and "tool_choice" not in fake_provider.requests[0]


async def test_a_key_the_provider_echoes_in_a_401_body_is_redacted_from_the_error(fake_provider, fake_model):
    import uuid

    from jupyter_agent.testing.fake_provider import rejected_key

    key = f"own-{uuid.uuid4().hex[:10]}"  # shaped like no known token: only remembering it can hide it
    fake_provider.queue(rejected_key())
    history = []
    with pytest.raises(AgentLoopError) as caught:
        await run(fake_model, "hi", history, stream_options=StreamOptions(api_key=key))
    assert fake_provider.request_headers[-1]["authorization"] == f"Bearer {key}"
    assert str(caught.value).startswith("openai: authentication failed (401): Incorrect API key provided: [redacted:api_key]")
    assert key[:MIN_PREFIX] not in history[-1].error_message


MIN_PREFIX = 6


async def test_a_missing_key_is_labelled_as_such_not_as_a_server_error(litellm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    from jupyter_agent.model.catalog import get_model

    history = []
    with pytest.raises(AgentLoopError) as caught:
        await run(get_model("openai/gpt-4.1-mini"), "hi", history)  # no key: the SDK refuses before any request
    assert str(caught.value) == "no API key for openai: set OPENAI_API_KEY or pass api_key in the StreamOptions"
    assert history[-1].error_message == str(caught.value)


def test_the_warm_up_runs_litellms_first_completion_offline(monkeypatch):
    from jupyter_agent.model.litellm_loader import litellm_module_sync
    from jupyter_agent.model.litellm_stream import warm_first_completion

    litellm = litellm_module_sync()
    monkeypatch.setattr(litellm, "success_callback", [])
    ran = []
    real = litellm.completion

    def completion(**request):
        ran.append(request)
        return real(**request)

    monkeypatch.setattr(litellm, "completion", completion)
    assert warm_first_completion("openai/fake-model")
    assert [(r["model"], r["mock_response"], r["stream"]) for r in ran] == [("openai/fake-model", "ok", True)]


def test_the_warm_up_leaves_litellm_alone_while_a_callback_would_see_its_call(monkeypatch):
    from jupyter_agent.model.litellm_loader import litellm_module_sync
    from jupyter_agent.model.litellm_stream import warm_first_completion

    litellm = litellm_module_sync()
    seen = []
    monkeypatch.setattr(litellm, "success_callback", [lambda *args: seen.append(args)])
    monkeypatch.setattr(litellm, "completion", lambda **request: seen.append(request))
    assert not warm_first_completion("openai/fake-model")
    assert seen == []
