"""One turn's MCP part with a real run: tools, notes, a changed tool list at the next step."""

import pytest
from mcp_servers import stdio_config

from jupyter_agent.features.mcp.feature import McpFeatureTurn
from jupyter_agent.features.mcp.registry import McpRegistry
from jupyter_agent.features.mcp.turn import McpTurn
from jupyter_agent.features.turn_features import TurnFeatures
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

pytestmark = pytest.mark.anyio


async def test_a_tool_added_during_the_run_is_offered_at_the_next_step(tmp_path):
    registry, notes = McpRegistry(), []
    mcp = await McpTurn.open([stdio_config("demo")], log_folder=tmp_path, redact=str, note=notes.append, servers=registry)
    try:
        assert "mcp__demo__extra" not in {tool.name for tool in mcp.tools}
        model = ScriptedModel([tool_calls(call("mcp__demo__grow")), tool_calls(call("mcp__demo__extra")), reply("done")])
        run = run_agent(
            model.model(),
            "grow",
            tools=mcp.tools,
            stream_fn=model,
            prepare_step=TurnFeatures([], [("mcp", McpFeatureTurn(None, mcp))]).prepare_step(),
        )
        result = await run.result()
        offered = [{tool.name for tool in request.context.tools} for request in model.requests]
        assert "mcp__demo__extra" not in offered[0] and "mcp__demo__extra" in offered[1]
        extra = [m for m in result.messages if m.role == "tool_result" and m.tool_name == "mcp__demo__extra"][0]
        assert extra.content[0].text == "extra tool ran" and not extra.is_error
    finally:
        await registry.stop_all()


async def test_problems_become_one_note_and_unavailable_servers_a_system_section(tmp_path):
    registry, notes = McpRegistry(), []
    mcp = await McpTurn.open(
        [stdio_config("slow", "--never-start", start_timeout=0.5)],
        ["MCP config x: bad"],
        log_folder=tmp_path,
        redact=str,
        note=notes.append,
        servers=registry,
    )
    assert mcp.tools == []
    assert notes[-1] == (
        "MCP config x: bad · MCP server 'slow' is unavailable: did not start within 0.5 s (`%agent mcp restart slow` tries again)"
    )
    assert mcp.system_section() == (
        "MCP servers unavailable in this turn (their tools are missing; the user was told why): slow."
    )
    await registry.stop_all()


async def test_results_map_text_images_resources_and_errors(tmp_path):
    registry = McpRegistry()
    mcp = await McpTurn.open(
        [stdio_config("demo")],
        log_folder=tmp_path,
        redact=lambda text: text.replace("readme", "[r]"),
        note=lambda text: None,
        servers=registry,
    )
    tools = {tool.name: tool for tool in mcp.tools}
    try:
        picture = await tools["mcp__demo__picture"].execute(tools["mcp__demo__picture"].parameters(), None)
        assert picture.content[0].type == "image" and picture.content[0].mime_type == "image/png"
        document = await tools["mcp__demo__document"].execute(tools["mcp__demo__document"].parameters(), None)
        assert document.content[0].text == "[resource demo://[r]]\nThe demo [r]."  # redacted like every result
        with pytest.raises(Exception, match="nope"):
            await tools["mcp__demo__fail"].execute(tools["mcp__demo__fail"].parameters.model_validate({"reason": "nope"}), None)
        assert tools["mcp__demo__echo"].read_only and not tools["mcp__demo__add_note"].read_only
        assert tools["mcp__demo__add_note"].label == "add_note on MCP server demo"
    finally:
        await registry.stop_all()
