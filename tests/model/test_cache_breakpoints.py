"""Prompt-cache breakpoints: where they go, for whom, and that litellm writes them in Anthropic's shape."""

import json

from jupyter_agent import AssistantMessage, Context, Model, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.model import StreamOptions, ToolSpec
from jupyter_agent.model.cache_breakpoints import MAX_BREAKPOINTS, takes_cache_breakpoints
from jupyter_agent.model.litellm_convert import build_request

EPHEMERAL = {"type": "ephemeral"}
TOOLS = [
    ToolSpec(name=name, description=f"the {name} tool", parameters={"type": "object", "properties": {}}) for name in ("a", "b")
]


def conversation() -> list:
    call = ToolCall(id="call_1", name="a", arguments={})
    return [
        UserMessage(content="first question"),
        AssistantMessage(content=[TextContent(text="looking"), call], provider="anthropic", model="claude-sonnet-4-5"),
        ToolResultMessage(tool_call_id="call_1", tool_name="a", content=[TextContent(text="result")]),
    ]


def markers(request: dict) -> list[str]:
    found = []
    for tool in request.get("tools") or []:
        if tool.get("cache_control") == EPHEMERAL:
            found.append(f"tool {tool['function']['name']}")
    for message in request["messages"]:
        content = message.get("content")
        if message.get("cache_control") == EPHEMERAL or (
            isinstance(content, list) and content[-1].get("cache_control") == EPHEMERAL
        ):
            found.append(message["role"])
    return found


def test_claude_providers_take_breakpoints_and_automatic_caches_do_not():
    assert takes_cache_breakpoints(Model(id="claude-sonnet-4-5", provider="anthropic"))
    assert takes_cache_breakpoints(Model(id="anthropic.claude-3-7-sonnet-20250219-v1:0", provider="bedrock"))
    assert takes_cache_breakpoints(Model(id="claude-opus-4@20250514", provider="vertex_ai"))
    assert not takes_cache_breakpoints(Model(id="gemini-2.5-pro", provider="vertex_ai"))
    assert not takes_cache_breakpoints(Model(id="gpt-4.1", provider="openai"))


def test_the_system_prompt_the_tool_list_the_prompt_and_the_newest_message_are_breakpoints():
    model = Model(id="claude-sonnet-4-5", provider="anthropic")
    request = build_request(model, Context(system_prompt="rules", messages=conversation(), tools=TOOLS))
    assert markers(request) == ["tool b", "system", "user", "tool"]
    assert len(markers(request)) <= MAX_BREAKPOINTS
    assert request["messages"][0]["content"] == [{"type": "text", "text": "rules", "cache_control": EPHEMERAL}]
    assert request["messages"][1]["content"] == [{"type": "text", "text": "first question", "cache_control": EPHEMERAL}]


def test_a_first_request_marks_its_prompt_once_and_other_providers_get_no_markers():
    first = build_request(
        Model(id="claude-sonnet-4-5", provider="anthropic"), Context(system_prompt="rules", messages=[UserMessage(content="hi")])
    )
    assert markers(first) == ["system", "user"]
    plain = build_request(
        Model(id="gpt-4.1", provider="openai"), Context(system_prompt="rules", messages=conversation(), tools=TOOLS)
    )
    assert markers(plain) == [] and plain["messages"][1]["content"] == "first question"
    forced = build_request(
        Model(id="gpt-4.1", provider="openai"),
        Context(messages=conversation(), tools=TOOLS),
        StreamOptions(cache_breakpoints=True),
    )
    assert markers(forced) == ["tool b", "user", "tool"]
    off = build_request(
        Model(id="claude-sonnet-4-5", provider="anthropic"),
        Context(messages=conversation()),
        StreamOptions(cache_breakpoints=False),
    )
    assert markers(off) == []


def test_litellm_writes_the_breakpoints_into_anthropics_request(litellm):
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig

    model = Model(id="claude-sonnet-4-5", provider="anthropic")
    request = build_request(model, Context(system_prompt="rules", messages=conversation(), tools=TOOLS))
    config = AnthropicConfig()
    params = config.map_openai_params({"tools": request["tools"], "max_tokens": 100}, {}, "claude-sonnet-4-5", drop_params=True)
    body = config.transform_request("claude-sonnet-4-5", request["messages"], params, {}, {})
    assert body["system"][0]["cache_control"]["type"] == "ephemeral"
    assert body["tools"][-1]["cache_control"]["type"] == "ephemeral"
    assert body["messages"][0]["content"][-1]["cache_control"]["type"] == "ephemeral"
    tool_result = body["messages"][-1]["content"][-1]
    assert tool_result["type"] == "tool_result" and tool_result["cache_control"]["type"] == "ephemeral"


PLAN = "## Current task plan\n[>] 1. a"
STEP_CONTEXT = f"<step-context>\n{PLAN}\n</step-context>"


def test_the_step_context_is_the_last_message_after_the_breakpoints():
    model = Model(id="claude-sonnet-4-5", provider="anthropic")
    request = build_request(model, Context(system_prompt="rules", messages=conversation(), tools=TOOLS, step_context=PLAN))
    # The newest breakpoint stays on the newest message of the history: the next step's prefix.
    assert markers(request) == ["tool b", "system", "user", "tool"]
    assert request["messages"][-2]["role"] == "tool" and request["messages"][-2]["cache_control"] == EPHEMERAL
    assert request["messages"][-1] == {"role": "user", "content": STEP_CONTEXT}
    plain = build_request(Model(id="gpt-4.1", provider="openai"), Context(messages=conversation(), step_context=PLAN))
    assert markers(plain) == [] and plain["messages"][-1] == {"role": "user", "content": STEP_CONTEXT}
    blank = build_request(model, Context(messages=conversation(), step_context="  \n"))
    assert blank["messages"][-1]["role"] == "tool"  # nothing to say: no message


def anthropic_body(request: dict) -> dict:
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig

    config = AnthropicConfig()
    params = config.map_openai_params({"tools": request.get("tools") or [], "max_tokens": 100}, {}, "claude-sonnet-4-5", True)
    return config.transform_request("claude-sonnet-4-5", request["messages"], params, {}, {})


def test_litellm_puts_the_step_context_after_the_tool_results_in_anthropics_last_user_turn(litellm):
    model = Model(id="claude-sonnet-4-5", provider="anthropic")
    body = anthropic_body(
        build_request(model, Context(system_prompt="rules", messages=conversation(), tools=TOOLS, step_context=PLAN))
    )
    # Roles still alternate: the step context joins the user turn of the tool results, after them.
    assert [message["role"] for message in body["messages"]] == ["user", "assistant", "user"]
    result, context = body["messages"][-1]["content"]
    assert result["type"] == "tool_result" and result["cache_control"]["type"] == "ephemeral"
    assert context == {"type": "text", "text": STEP_CONTEXT}  # after the breakpoint: never cached
    # A turn's first request: the prompt (marked) and the step context share the one user turn.
    first = anthropic_body(build_request(model, Context(messages=[UserMessage(content="hi")], step_context=PLAN)))
    assert len(first["messages"]) == 1
    prompt, context = first["messages"][0]["content"]
    assert prompt["text"] == "hi" and prompt["cache_control"]["type"] == "ephemeral"
    assert context == {"type": "text", "text": STEP_CONTEXT}


def test_bedrock_converse_gets_the_step_context_after_the_cache_point_and_no_warning_in_the_cell(litellm):
    import logging

    from litellm.litellm_core_utils.prompt_templates.factory import _bedrock_converse_messages_pt

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("LiteLLM")
    logger.addHandler(handler)
    model = Model(id="anthropic.claude-3-7-sonnet-20250219-v1:0", provider="bedrock")
    request = build_request(model, Context(system_prompt="rules", messages=conversation(), step_context=PLAN))
    try:
        messages = _bedrock_converse_messages_pt(request["messages"][1:], model.id, "bedrock_converse")
    finally:
        logger.removeHandler(handler)
    assert [message["role"] for message in messages] == ["user", "assistant", "user"]
    assert [next(iter(block)) for block in messages[-1]["content"]] == ["toolResult", "cachePoint", "text"]
    assert messages[-1]["content"][-1]["text"] == STEP_CONTEXT
    assert not [record for record in records if record.levelno >= logging.WARNING]


def test_a_request_s_breakpoints_never_reach_the_message_dicts_the_next_request_shares():
    model = Model(id="claude-sonnet-4-5", name="claude", api="litellm", provider="anthropic")
    history = [
        UserMessage(content="plot it"),
        AssistantMessage(
            content=[TextContent(text="ok"), ToolCall(id="c1", name="python", arguments={"code": "1"})], provider="anthropic"
        ),
        ToolResultMessage(tool_call_id="c1", tool_name="python", content=[TextContent(text="1")]),
    ]
    first = build_request(model, Context(system_prompt="sys", messages=history))
    second = build_request(model, Context(system_prompt="sys", messages=[*history, UserMessage(content="and now?")]))
    marked = [m for m in second["messages"] if "cache_control" in json.dumps(m)]
    assert [m["role"] for m in marked] == ["system", "user"]  # the first request's marks on "tool" did not stay
    assert "cache_control" in json.dumps(first["messages"][-1])
