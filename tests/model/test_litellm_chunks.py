"""``ChunkAssembler``: litellm chunks (real litellm objects) -> stream events and the final message."""

import pytest

from jupyter_agent import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from jupyter_agent.model.litellm_chunks import CONTENT_FILTERED, INVALID_ARGUMENTS_KEY, ChunkAssembler, parse_arguments


@pytest.fixture
def chunk(litellm):
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

    def make(finish_reason=None, usage=None, **delta):
        if usage is not None:
            return ModelResponseStream(choices=[], usage=usage)
        return ModelResponseStream(choices=[StreamingChoices(index=0, delta=Delta(**delta), finish_reason=finish_reason)])

    return make


def tool_part(index, id=None, name=None, arguments=None):
    return {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def assemble(chunks, taken_ids=()):
    events = []
    assembler = ChunkAssembler(AssistantMessage(provider="openai", model="m"), events.append, taken_ids)
    assembler.start()
    for item in chunks:
        assembler.add(item)
    final = assembler.finish(Usage())
    return events, final


def types(events):
    return [event.type for event in events]


def test_empty_role_chunk_opens_no_block_and_text_deltas_accumulate(chunk):
    events, final = assemble(
        [chunk(role="assistant", content=""), chunk(content="a"), chunk(content="b"), chunk(finish_reason="stop")]
    )
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end"]
    assert final.type == "done" and final.reason == "stop" and final.message.text == "ab"


def test_switching_kinds_ends_the_open_block_and_indexes_follow_the_content(chunk):
    events, final = assemble(
        [
            chunk(reasoning_content="think"),
            chunk(content="say"),
            chunk(tool_calls=[tool_part(0, "call_1", "f", '{"a": 1}')]),
            chunk(finish_reason="tool_calls"),
        ]
    )
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
    ]
    assert [getattr(e, "content_index", None) for e in events] == [None, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert final.reason == "tool_use"
    assert final.message.content == [
        ThinkingContent(thinking="think"),
        TextContent(text="say"),
        ToolCall(id="call_1", name="f", arguments={"a": 1}),
    ]


def test_tool_arguments_accumulate_per_index_and_parse_at_the_end(chunk):
    events, final = assemble(
        [
            chunk(tool_calls=[tool_part(0, "call_1", "read", "")]),
            chunk(tool_calls=[tool_part(0, arguments='{"pa')]),
            chunk(tool_calls=[tool_part(0, arguments='th": "x"}')]),
            chunk(tool_calls=[tool_part(1, "call_2", "run", '{"code": "1"}')]),
            chunk(finish_reason="tool_calls"),
        ]
    )
    ends = [e for e in events if e.type == "tool_call_end"]
    assert [e.tool_call for e in ends] == [
        ToolCall(id="call_1", name="read", arguments={"path": "x"}),
        ToolCall(id="call_2", name="run", arguments={"code": "1"}),
    ]
    assert ends[0].partial.content[0].arguments == {"path": "x"}
    assert ends[0].tool_call is not ends[0].partial.content[0]
    assert [e.delta for e in events if e.type == "tool_call_delta"] == ['{"pa', 'th": "x"}', '{"code": "1"}']
    assert final.message.tool_calls == [e.tool_call for e in ends]


def test_a_reused_stream_index_with_a_new_id_is_a_new_call(chunk):
    # Some providers (Gemini through litellm) send every complete call at index 0.
    _, final = assemble(
        [
            chunk(tool_calls=[tool_part(0, "call_1", "a", "{}")]),
            chunk(tool_calls=[tool_part(0, "call_2", "b", '{"x": 2}')]),
            chunk(finish_reason="tool_calls"),
        ]
    )
    assert [(c.id, c.name, c.arguments) for c in final.message.tool_calls] == [("call_1", "a", {}), ("call_2", "b", {"x": 2})]


def test_a_repeated_call_id_is_renamed_and_its_fragments_still_follow_it(chunk):
    # This provider repeats the id on every fragment, and reuses an id of an earlier response.
    _, final = assemble(
        [
            chunk(tool_calls=[tool_part(0, "call_0", "f", '{"a":')]),
            chunk(tool_calls=[tool_part(1, "call_0", "g", '{"b":')]),
            chunk(tool_calls=[tool_part(0, "call_0", None, " 1}")]),
            chunk(tool_calls=[tool_part(1, "call_0", None, " 2}")]),
            chunk(finish_reason="tool_calls"),
        ],
        taken_ids={"call_0"},
    )
    assert [(c.id, c.name, c.arguments) for c in final.message.tool_calls] == [
        ("call_0_2", "f", {"a": 1}),
        ("call_0_3", "g", {"b": 2}),
    ]


def test_a_call_without_an_id_gets_one(chunk):
    _, final = assemble([chunk(tool_calls=[tool_part(0, None, "a", "{}")]), chunk(finish_reason="tool_calls")])
    assert final.message.tool_calls[0].id.startswith("call_")


def test_a_name_arriving_after_the_first_fragment_is_kept(chunk):
    _, final = assemble(
        [
            chunk(tool_calls=[tool_part(0, "call_1", None, "{")]),
            chunk(tool_calls=[tool_part(0, None, "late", "}")]),
            chunk(finish_reason="tool_calls"),
        ]
    )
    assert final.message.tool_calls[0].name == "late"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("", {}),
        ("  ", {}),
        ('{"a": [1, {"b": null}]}', {"a": [1, {"b": None}]}),
        ('{"a": ', {INVALID_ARGUMENTS_KEY: '{"a": '}),
        ("[1, 2]", {INVALID_ARGUMENTS_KEY: "[1, 2]"}),
    ],
)
def test_parse_arguments(raw, expected):
    assert parse_arguments(raw) == expected


def test_a_signature_seals_the_thinking_block_so_more_thinking_opens_another(chunk):
    events, final = assemble(
        [
            chunk(reasoning_content="one"),
            chunk(reasoning_content="", thinking_blocks=[{"type": "thinking", "thinking": "", "signature": "s1"}]),
            chunk(reasoning_content="two"),
            chunk(content="x"),
            chunk(finish_reason="stop"),
        ]
    )
    assert final.message.content == [
        ThinkingContent(thinking="one", thinking_signature="s1"),
        ThinkingContent(thinking="two"),
        TextContent(text="x"),
    ]
    assert types(events).count("thinking_end") == 2


def test_a_signature_with_no_thinking_text_still_makes_a_block(chunk):
    _, final = assemble(
        [
            chunk(thinking_blocks=[{"type": "thinking", "thinking": "", "signature": "s"}]),
            chunk(content="x"),
            chunk(finish_reason="stop"),
        ]
    )
    assert final.message.content[0] == ThinkingContent(thinking="", thinking_signature="s")


def test_redacted_thinking_becomes_a_closed_redacted_block(chunk):
    events, final = assemble(
        [
            chunk(thinking_blocks=[{"type": "redacted_thinking", "data": "opaque"}]),
            chunk(content="x"),
            chunk(finish_reason="stop"),
        ]
    )
    assert types(events)[:3] == ["start", "thinking_start", "thinking_end"]
    assert final.message.content[0] == ThinkingContent(thinking="", thinking_signature="opaque", redacted=True)


@pytest.mark.parametrize(
    "finish_reason, has_call, reason",
    [
        ("stop", False, "stop"),
        (None, False, "stop"),
        ("length", False, "length"),
        ("length", True, "length"),
        ("stop", True, "tool_use"),  # some providers say "stop" after tool calls
        ("function_call", False, "tool_use"),
    ],
)
def test_stop_reasons(chunk, finish_reason, has_call, reason):
    chunks = [chunk(content="x")]
    if has_call:
        chunks.append(chunk(tool_calls=[tool_part(0, "call_1", "f", "{}")]))
    if finish_reason:
        chunks.append(chunk(finish_reason=finish_reason))
    _, final = assemble(chunks)
    assert (final.type, final.reason, final.message.stop_reason) == ("done", reason, reason)


def test_content_filter_is_an_error_naming_the_provider(chunk):
    _, final = assemble([chunk(content="x"), chunk(finish_reason="content_filter")])
    assert (final.type, final.reason) == ("error", "error")
    assert final.error.error_message == f"openai: {CONTENT_FILTERED}"
    assert final.error.text == "x"


def test_usage_is_read_from_the_usage_chunk_or_the_finish_chunk(chunk, litellm):
    from litellm.types.utils import Usage as LitellmUsage

    events = []
    assembler = ChunkAssembler(AssistantMessage(), events.append)
    assembler.add(chunk(usage=LitellmUsage(prompt_tokens=5, completion_tokens=2, total_tokens=7)))
    assert assembler.raw_usage.prompt_tokens == 5
    finish = chunk(finish_reason="stop")
    finish.usage = LitellmUsage(prompt_tokens=9, completion_tokens=1, total_tokens=10)
    assembler.add(finish)
    assert assembler.raw_usage.prompt_tokens == 9


def test_failure_snapshots_the_partial_with_the_reason_and_message(chunk):
    events = []
    assembler = ChunkAssembler(AssistantMessage(provider="openai"), events.append)
    assembler.start()
    assembler.add(chunk(content="half"))
    error = assembler.failure("aborted", "Request aborted")
    assert (error.type, error.reason, error.error.stop_reason, error.error.text) == ("error", "aborted", "aborted", "half")
    assert error.error is not assembler.partial
