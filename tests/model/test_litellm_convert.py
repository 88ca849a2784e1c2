"""``build_request``: Context and StreamOptions -> litellm (OpenAI chat-completions) arguments."""

import pytest

from jupyter_agent import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from jupyter_agent.model.litellm_convert import (
    EMPTY_TOOL_RESULT,
    NO_KEY,
    TOOL_IMAGES_FOLLOW,
    build_request,
    to_litellm_messages,
)

MODEL = Model(id="gpt-4o", provider="openai", input=["text", "image"])
IMAGE = ImageContent(data="QUJD", mime_type="image/png")
IMAGE_PART = {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}


def messages(*items, model=MODEL, system=None):
    return to_litellm_messages(Context(system_prompt=system, messages=list(items)), model)


def test_system_prompt_comes_first_and_user_text_stays_a_string():
    assert messages(UserMessage(content="hi"), system="Be brief.") == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


def test_user_text_blocks_join_into_a_string_and_images_become_data_urls():
    assert messages(UserMessage(content=[TextContent(text="a"), TextContent(text="b")]))[0]["content"] == "a\nb"
    assert messages(UserMessage(content=[TextContent(text="see"), IMAGE]))[0]["content"] == [
        {"type": "text", "text": "see"},
        IMAGE_PART,
    ]


def test_assistant_text_and_tool_calls():
    assistant = AssistantMessage(
        content=[
            TextContent(text="Let me "),
            TextContent(text="look."),
            ToolCall(id="call_1", name="read", arguments={"path": "ä.csv"}),
        ]
    )
    assert messages(assistant) == [
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"path": "\\u00e4.csv"}'}}
            ],
        }
    ]


def test_an_assistant_with_only_tool_calls_has_null_content_and_an_empty_one_is_skipped():
    only_call = AssistantMessage(content=[ToolCall(id="c", name="f", arguments={})])
    assert messages(only_call)[0]["content"] is None
    assert messages(UserMessage(content="q"), AssistantMessage(content=[]), UserMessage(content="r")) == [
        {"role": "user", "content": "q"},
        {"role": "user", "content": "r"},
    ]


def test_signed_and_redacted_thinking_travel_as_thinking_blocks_and_unsigned_as_reasoning_content():
    assistant = AssistantMessage(
        content=[
            ThinkingContent(thinking="signed", thinking_signature="sig"),
            ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
            ThinkingContent(thinking="plain"),
            TextContent(text="answer"),
        ]
    )
    [converted] = messages(assistant)
    assert converted["thinking_blocks"] == [
        {"type": "thinking", "thinking": "signed", "signature": "sig"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    assert converted["reasoning_content"] == "plain"
    assert converted["content"] == "answer"


def test_tool_results_are_tool_messages_and_their_images_follow_as_one_user_message():
    results = [
        ToolResultMessage(tool_call_id="c1", tool_name="plot", content=[TextContent(text="drawn"), IMAGE]),
        ToolResultMessage(tool_call_id="c2", tool_name="plot", content=[IMAGE]),
        ToolResultMessage(tool_call_id="c3", tool_name="noop", content=[]),
    ]
    converted = messages(*results, UserMessage(content="next"))
    assert converted == [
        {"role": "tool", "tool_call_id": "c1", "content": "drawn"},
        {"role": "tool", "tool_call_id": "c2", "content": TOOL_IMAGES_FOLLOW},
        {"role": "tool", "tool_call_id": "c3", "content": EMPTY_TOOL_RESULT},
        {"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_FOLLOW}, IMAGE_PART, IMAGE_PART]},
        {"role": "user", "content": "next"},
    ]


def test_anthropic_takes_tool_result_images_inside_the_tool_message():
    claude = Model(id="claude-sonnet-4-5", provider="anthropic", input=["text", "image"])
    result = ToolResultMessage(tool_call_id="c1", tool_name="plot", content=[TextContent(text="drawn"), IMAGE])
    assert messages(result, model=claude) == [
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "drawn"}, IMAGE_PART]}
    ]


def test_tools_and_tool_choice():
    context = Context(
        messages=[UserMessage(content="q")],
        tools=[
            ToolSpec(name="read", description="Read", parameters={"type": "object", "properties": {"p": {"type": "string"}}}),
            ToolSpec(name="now", description="Time", parameters={}),
        ],
    )
    request = build_request(MODEL, context, StreamOptions(tool_choice="read"))
    assert request["tools"][0] == {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read",
            "parameters": {"type": "object", "properties": {"p": {"type": "string"}}},
        },
    }
    assert request["tools"][1]["function"]["parameters"] == {"type": "object", "properties": {}}
    assert request["tool_choice"] == {"type": "function", "function": {"name": "read"}}
    assert build_request(MODEL, context, StreamOptions(tool_choice="required"))["tool_choice"] == "required"
    assert "tool_choice" not in build_request(MODEL, context)


def test_request_defaults_stream_with_usage_and_no_hidden_retries():
    request = build_request(MODEL, Context(messages=[UserMessage(content="q")]))
    assert request["model"] == "openai/gpt-4o"
    assert (request["stream"], request["stream_options"], request["max_retries"], request["drop_params"]) == (
        True,
        {"include_usage": True},
        0,
        True,
    )
    assert not {"tools", "api_base", "max_tokens", "temperature", "reasoning_effort"} & set(request)


def test_options_map_to_litellm_arguments_and_extra_wins():
    options = StreamOptions(
        max_tokens=100,
        temperature=0.5,
        reasoning="high",
        api_key="k",
        api_base="http://x/v1",
        extra={"temperature": 0.1, "seed": 3},
    )
    request = build_request(MODEL.model_copy(update={"base_url": "http://model/v1"}), Context(), options)
    assert (request["max_tokens"], request["temperature"], request["seed"]) == (100, 0.1, 3)
    assert (request["reasoning_effort"], request["api_key"], request["api_base"]) == ("high", "k", "http://x/v1")


def test_a_custom_openai_endpoint_without_any_key_gets_a_placeholder(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = Model(id="llama", provider="openai", base_url="http://127.0.0.1:8000/v1")
    assert build_request(local, Context())["api_key"] == NO_KEY
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert "api_key" not in build_request(local, Context())
    assert "api_key" not in build_request(Model(id="llama", provider="ollama", base_url="http://h"), Context())


@pytest.mark.parametrize(
    "model, name",
    [
        (Model(id="gpt-4o"), "openai/gpt-4o"),
        (Model(id="anthropic/claude-x", provider="anthropic"), "anthropic/claude-x"),
        (Model(id="anthropic/claude-x", provider="openrouter"), "openrouter/anthropic/claude-x"),
    ],
)
def test_the_litellm_model_name(model, name):
    assert build_request(model, Context())["model"] == name


def test_a_growing_history_converts_as_a_fresh_one_does_and_held_images_wait_for_the_next_message():
    call = ToolCall(id="call_1", name="screenshot")
    history = [UserMessage(content="look"), AssistantMessage(content=[call])]
    shot = ToolResultMessage(tool_call_id="call_1", tool_name="screenshot", content=[TextContent(text="ok"), IMAGE])
    for message in [shot, UserMessage(content="and now?"), AssistantMessage(content=[TextContent(text="fine")])]:
        history.append(message)
        grown = messages(*history, system="S")
        assert grown == messages(*(m.model_copy(deep=True) for m in history), system="S")
    # The image followed its result as a user message once, before the next prompt.
    assert [m["role"] for m in grown] == ["system", "user", "assistant", "tool", "user", "user", "assistant"]
    assert grown[4]["content"][1] == IMAGE_PART


def test_a_long_historys_first_request_is_converted_with_the_collector_paused(monkeypatch):
    import gc

    import jupyter_agent.model.litellm_convert as convert
    from jupyter_agent.long_lived import MANY_NEW_VALUES

    monkeypatch.setattr(gc, "freeze", lambda: None)  # the test's objects stay collectable
    collecting: list[bool] = []
    user_message = convert._USER_MESSAGES
    monkeypatch.setattr(convert, "_USER_MESSAGES", lambda message: collecting.append(gc.isenabled()) or user_message(message))
    history = [UserMessage(content=f"message {i}") for i in range(MANY_NEW_VALUES)]
    model = Model(id="a-model", provider="openai")
    assert len(to_litellm_messages(Context(messages=history), model)) == MANY_NEW_VALUES
    assert len(collecting) == MANY_NEW_VALUES and not any(collecting)
    collecting.clear()
    history.append(UserMessage(content="one more"))
    to_litellm_messages(Context(messages=history), model)
    assert collecting == [True]
