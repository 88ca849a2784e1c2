"""The model summary request: what it sends, and that only cancellation escapes it."""

import asyncio

import pytest

from jupyter_agent import (
    AbortController,
    AssistantMessage,
    Model,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from jupyter_agent.runtime.summarize import SUMMARY_MAX_TOKENS, SUMMARY_SYSTEM_PROMPT, render_transcript, summarize_with_model
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, failure, reply
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio

MESSAGES = [
    UserMessage(content="build the report"),
    AssistantMessage(content=[TextContent(text="reading"), ToolCall(id="1", name="read", arguments={"path": "a.csv"})]),
    ToolResultMessage(tool_call_id="1", tool_name="read", content=[TextContent(text="z" * 5000)], is_error=True),
]


def test_render_transcript_tags_roles_and_cuts_tool_output():
    text = render_transcript(MESSAGES)
    assert "<user>\nbuild the report\n</user>" in text
    assert '[tool call] read {"path": "a.csv"}' in text
    assert '<tool_result name="read" error="true">' in text and "characters cut]" in text
    assert len(text) < 2_000


async def test_the_request_uses_the_run_options_with_its_own_limits():
    model = ScriptedModel([reply("- bullet")])
    summary, usage = await summarize_with_model(
        model,
        Model(id="m"),
        MESSAGES,
        StreamOptions(api_key="k", tool_choice="required", temperature=1.0),
        AbortController().signal,
    )
    assert summary == "- bullet" and usage.output > 0
    request = model.requests[0]
    assert request.context.system_prompt == SUMMARY_SYSTEM_PROMPT and request.context.tools == []
    assert (request.options.api_key, request.options.max_tokens, request.options.tool_choice, request.options.temperature) == (
        "k",
        SUMMARY_MAX_TOKENS,
        None,
        None,
    )


@pytest.mark.parametrize("response", [failure("overloaded"), reply("   ")])
async def test_failed_or_empty_summaries_return_none(response):
    summary, _ = await summarize_with_model(ScriptedModel([response]), Model(id="m"), MESSAGES, None, AbortController().signal)
    assert summary is None


async def test_a_raising_stream_fn_returns_none():
    def broken(*args):
        raise OSError("down")

    assert await summarize_with_model(broken, Model(id="m"), MESSAGES, None, AbortController().signal) == (None, None)


async def test_cancellation_escapes():
    controller = AbortController()
    model = ScriptedModel([ScriptedResponse(content=[TextContent(text="slow")], hang=True)])
    task = asyncio.ensure_future(summarize_with_model(model, Model(id="m"), MESSAGES, None, controller.signal))
    await wait_until(lambda: model.requests, what="the summary request")
    controller.abort()
    with pytest.raises(Exception) as caught:
        await asyncio.wait_for(task, 5)
    assert caught.value is controller.signal.reason
