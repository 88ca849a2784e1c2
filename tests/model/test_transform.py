from jupyter_agent.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from jupyter_agent.model import HistorySource, Model, ToolRepairSource, transform_messages, transform_with_origins
from jupyter_agent.model.transform import IMAGE_OMITTED, NO_RESULT_PROVIDED, TOOL_IMAGE_OMITTED, normalize_tool_call_id

SOURCE = Model(id="m1", provider="openai", input=["text", "image"])
OTHER = Model(id="m2", provider="anthropic", input=["text"])


def assistant(*content, stop_reason="stop", model=SOURCE):
    return AssistantMessage(
        content=list(content), provider=model.provider, api=model.api, model=model.id, stop_reason=stop_reason
    )


def test_failed_and_aborted_assistants_are_dropped_without_repairs():
    history = [
        UserMessage(content="hi"),
        assistant(ToolCall(id="c1", name="x"), stop_reason="error"),
        assistant(TextContent(text="partial"), stop_reason="aborted"),
        UserMessage(content="again"),
    ]
    out = transform_with_origins(history, SOURCE)
    assert [source.message_index for _, source in out] == [0, 3]


def test_thinking_kept_for_same_model_and_turned_to_text_for_another():
    message = assistant(
        ThinkingContent(thinking="plan", thinking_signature="sig"),
        ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
        ThinkingContent(thinking="   "),
        TextContent(text="done", text_signature="ts"),
    )
    same = transform_messages([UserMessage(content="q"), message], SOURCE)[1]
    assert [block.type for block in same.content] == ["thinking", "thinking", "text"]
    assert same.content[2].text_signature == "ts"
    other = transform_messages([UserMessage(content="q"), message], OTHER)[1]
    assert [(block.type, block.text) for block in other.content] == [("text", "plan"), ("text", "done")]
    assert other.content[1].text_signature is None


def test_images_downgraded_for_text_only_models_and_collapsed():
    image = ImageContent(data="aGk=", mime_type="image/png")
    history = [
        UserMessage(content=[TextContent(text="see"), image, image]),
        assistant(ToolCall(id="c1", name="shot")),
        ToolResultMessage(tool_call_id="c1", tool_name="shot", content=[image]),
    ]
    out = transform_messages(history, OTHER)
    assert [block.text for block in out[0].content] == ["see", IMAGE_OMITTED]
    assert out[2].content[0].text == TOOL_IMAGE_OMITTED
    kept = transform_messages(history, SOURCE)
    assert kept[0].content[1].type == "image"


def test_missing_results_get_synthetic_error_results_with_origins():
    history = [
        UserMessage(content="go"),
        assistant(ToolCall(id="a", name="t1"), ToolCall(id="b", name="t2"), stop_reason="tool_use"),
        ToolResultMessage(tool_call_id="a", tool_name="t1", content=[TextContent(text="ok")]),
        UserMessage(content="steer"),
        assistant(ToolCall(id="c", name="t3"), stop_reason="tool_use"),
    ]
    out = transform_with_origins(history, SOURCE)
    sources = [source for _, source in out]
    assert sources == [
        HistorySource(message_index=0),
        HistorySource(message_index=1),
        HistorySource(message_index=2),
        ToolRepairSource(message_index=1, tool_call_id="b"),
        HistorySource(message_index=3),
        HistorySource(message_index=4),
        ToolRepairSource(message_index=4, tool_call_id="c"),
    ]
    repaired = out[3][0]
    assert repaired.is_error and repaired.content[0].text == NO_RESULT_PROVIDED and repaired.tool_name == "t2"


def test_tool_call_ids_normalized_for_the_target_provider_and_results_follow():
    long_id = "call|" + "x" * 80
    history = [
        UserMessage(content="go"),
        assistant(ToolCall(id="toolu:01/abc", name="t"), stop_reason="tool_use"),
        ToolResultMessage(tool_call_id="toolu:01/abc", tool_name="t"),
        assistant(ToolCall(id=long_id, name="t"), stop_reason="tool_use"),
        ToolResultMessage(tool_call_id=long_id, tool_name="t"),
    ]
    out = transform_messages(history, OTHER)
    assert out[1].content[0].id == "toolu_01_abc" == out[2].tool_call_id
    azure = transform_messages(history, Model(id="gpt", provider="azure"))
    assert azure[3].content[0].id == "call" == azure[4].tool_call_id
    same_provider = transform_messages(history, Model(id="another", provider="openai"))
    assert same_provider[3].content[0].id == long_id  # a provider accepts its own ids
    assert len(normalize_tool_call_id("y" * 100, OTHER)) == 64
    assert len(normalize_tool_call_id("y" * 100, SOURCE)) == 40


def test_history_is_never_mutated():
    history = [UserMessage(content="q"), assistant(ThinkingContent(thinking="plan"), TextContent(text="a"))]
    snapshot = [m.model_copy(deep=True) for m in history]
    out = transform_messages(history, OTHER)
    out[1].content[0].text = "changed"
    assert history == snapshot


def result(call_id, text="ok", name="t"):
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])


def pairing_errors(messages):
    """What a strict provider rejects: a result not answering an open call of the assistant before it."""
    errors, open_calls, seen = [], [], set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            if open_calls:
                errors.append(f"unanswered {open_calls}")
            open_calls = [call.id for call in message.tool_calls]
            errors += [f"duplicate id {call_id}" for call_id in open_calls if call_id in seen]
            seen.update(open_calls)
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id in open_calls:
                open_calls.remove(message.tool_call_id)
            else:
                errors.append(f"orphan {message.tool_call_id}")
        elif open_calls:
            errors.append(f"unanswered {open_calls}")
            open_calls = []
    return errors


def test_orphan_results_of_a_lost_assistant_are_dropped():
    # A resumed session whose assistant line was damaged: its results remain, unanswered by any call.
    history = [UserMessage(content="go"), result("lost"), result("lost2"), UserMessage(content="again")]
    out = transform_with_origins(history, SOURCE)
    assert [source.message_index for _, source in out] == [0, 3]


def test_a_result_for_another_call_or_a_second_answer_is_dropped_and_the_call_repaired():
    history = [
        UserMessage(content="go"),
        assistant(ToolCall(id="a", name="t"), stop_reason="tool_use"),
        result("zzz"),
        result("a", "first"),
        result("a", "second"),
        assistant(ToolCall(id="b", name="t"), stop_reason="tool_use"),
        result("a", "late"),
    ]
    out = transform_messages(history, SOURCE)
    assert pairing_errors(out) == []
    assert [m.content[0].text for m in out if m.role == "tool_result"] == ["first", NO_RESULT_PROVIDED]


def test_duplicate_call_ids_are_made_unique_and_results_follow_in_order():
    history = [
        UserMessage(content="go"),
        assistant(ToolCall(id="call_0", name="x"), ToolCall(id="call_0", name="y"), stop_reason="tool_use"),
        result("call_0", "from x", "x"),
        result("call_0", "from y", "y"),
        assistant(ToolCall(id="call_0", name="z"), stop_reason="tool_use"),
        result("call_0", "from z", "z"),
    ]
    out = transform_messages(history, SOURCE)
    assert pairing_errors(out) == []
    assert [call.id for call in out[1].tool_calls] == ["call_0", "call_0_2"]
    assert [(m.tool_call_id, m.content[0].text) for m in out if m.role == "tool_result"] == [
        ("call_0", "from x"),
        ("call_0_2", "from y"),
        ("call_0_3", "from z"),
    ]
    assert history[4].tool_calls[0].id == "call_0"  # the history itself keeps its ids
    assert out[0] is history[0] and len(out[1].tool_calls[1].id) <= 40


def test_ids_normalized_to_the_same_text_stay_distinct():
    history = [
        UserMessage(content="go"),
        assistant(ToolCall(id="a:b", name="t"), ToolCall(id="a/b", name="t"), stop_reason="tool_use"),
        result("a:b", "one"),
        result("a/b", "two"),
    ]
    out = transform_messages(history, OTHER)
    assert pairing_errors(out) == []
    assert [m.tool_call_id for m in out[2:]] == ["a_b", "a_b_2"]


def test_a_growing_history_gives_what_a_fresh_pass_gives():
    call = ToolCall(id="call_0", name="python")
    history = [UserMessage(content="q"), assistant(TextContent(text="a"), call)]
    fresh = lambda: transform_with_origins([message.model_copy(deep=True) for message in history], SOURCE)  # noqa: E731
    steps = [
        ToolResultMessage(tool_call_id="call_0", tool_name="python"),
        assistant(ToolCall(id="call_0", name="python")),  # a repeated id: renamed, and its result follows
        UserMessage(content="steer"),  # answers the open call with a repair, inside the history
        assistant(ToolCall(id="call_9", name="python")),
    ]
    for message in steps:
        # The open calls at the end are repaired in this request only; the next message may answer them.
        assert _shape(transform_with_origins(history, SOURCE)) == _shape(fresh())
        history.append(message)
    ended = transform_with_origins(history, OTHER)
    assert _shape(ended) == _shape(transform_with_origins([m.model_copy(deep=True) for m in history], OTHER))
    assert ended[-1][0].content[0].text == NO_RESULT_PROVIDED
    history.append(ToolResultMessage(tool_call_id="call_9", tool_name="python", content=[TextContent(text="done")]))
    assert transform_with_origins(history, OTHER)[-1][0].content[0].text == "done"
    assert [m.tool_calls[0].id for m, _ in transform_with_origins(history, OTHER) if m.role == "assistant"] == [
        "call_0",
        "call_0_2",
        "call_9",
    ]


def _shape(pairs):
    return [(message.model_dump(exclude={"timestamp"}), source) for message, source in pairs]


def test_a_long_historys_first_pass_runs_with_the_collector_paused_and_the_next_step_does_not(monkeypatch):
    import gc

    import jupyter_agent.model.transform as transform
    from jupyter_agent.long_lived import MANY_NEW_VALUES

    monkeypatch.setattr(gc, "freeze", lambda: None)  # the test's objects stay collectable
    collecting: list[bool] = []
    adapt_user = transform._adapt_user
    monkeypatch.setattr(
        transform, "_adapt_user", lambda message, model: collecting.append(gc.isenabled()) or adapt_user(message, model)
    )
    history = [UserMessage(content=f"message {i}") for i in range(MANY_NEW_VALUES)]
    model = Model(id="a-model", provider="openai")
    transform_messages(history, model)
    assert len(collecting) == MANY_NEW_VALUES and not any(collecting)
    collecting.clear()
    history.append(UserMessage(content="one more"))
    assert len(transform_messages(history, model)) == MANY_NEW_VALUES + 1
    assert collecting == [True]
