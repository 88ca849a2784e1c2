"""Model input metadata: history counts and origins, including repairs and model switching."""

import pytest

from jupyter_agent import AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall, UserMessage, run_agent_loop
from jupyter_agent.loop.normalize_input import build_model_input
from jupyter_agent.model import HistorySource, Model, ToolRepairSource
from jupyter_agent.testing.scripted import reply

pytestmark = pytest.mark.anyio


def test_origins_include_tool_repairs_and_skip_failed_assistants():
    model = Model(id="m")
    history = [
        UserMessage(content="q"),
        AssistantMessage(content=[ToolCall(id="x", name="t")], stop_reason="error", model="m"),
        AssistantMessage(content=[ToolCall(id="y", name="t")], stop_reason="tool_use", model="m"),
        UserMessage(content="steer"),
    ]
    messages, metadata = build_model_input(history, model)
    assert metadata.history_message_count == 4
    assert metadata.sources == [
        HistorySource(message_index=0),
        HistorySource(message_index=2),
        ToolRepairSource(message_index=2, tool_call_id="y"),
        HistorySource(message_index=3),
    ]
    assert len(messages) == len(metadata.sources)


async def test_metadata_on_every_request_survives_model_adaptation(scripted, options_for):
    image = ImageContent(data="aGk=", mime_type="image/png")
    history = [
        UserMessage(content=[TextContent(text="see"), image]),
        AssistantMessage(content=[ThinkingContent(thinking="mull"), TextContent(text="seen")], provider="other", model="vision"),
    ]
    scripted.queue(reply("ok"))
    text_model = scripted.model("text-only")
    await run_agent_loop("next", history, options_for(scripted, model=text_model))
    request = scripted.requests[0]
    assert request.metadata.history_message_count == 3
    assert request.metadata.sources == [HistorySource(message_index=i) for i in range(3)]
    adapted = request.context.messages
    assert adapted[0].content[1].type == "text"  # image downgraded, origin kept
    assert [b.type for b in adapted[1].content] == ["text", "text"]  # thinking became text
    assert history[0].content[1] == image  # history itself untouched
