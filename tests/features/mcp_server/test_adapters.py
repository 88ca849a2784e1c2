from types import SimpleNamespace

from serve_fakes import tools

from jupyter_agent.features.mcp_server.adapters import UNKNOWN_CLIENT, client_name, mcp_result, mcp_tools
from jupyter_agent.messages import ImageContent, TextContent, ToolResultMessage


def test_tools_keep_name_description_schema_and_say_which_only_read():
    variables, python = mcp_tools(tools())
    assert (variables.name, variables.description, variables.title) == ("variables", "The namespace.", "Variables")
    assert variables.annotations.read_only_hint is True and variables.annotations.destructive_hint is False
    assert python.annotations.read_only_hint is False and python.annotations.destructive_hint is True
    assert python.input_schema["properties"]["code"]["type"] == "string" and python.input_schema["required"] == ["code"]
    wire = python.model_dump(by_alias=True, exclude_none=True)
    assert "inputSchema" in wire and wire["annotations"]["readOnlyHint"] is False


def test_results_keep_text_and_images_redact_text_and_mark_errors():
    result = ToolResultMessage(
        tool_call_id="c1",
        tool_name="python",
        content=[TextContent(text="key sk-123 here"), ImageContent(data="iVBOR", mime_type="image/png")],
        is_error=True,
    )
    converted = mcp_result(result, lambda text: text.replace("sk-123", "[redacted:KEY]"))
    text, image = converted.content
    assert converted.is_error is True and text.text == "key [redacted:KEY] here"
    assert (image.type, image.data, image.mime_type) == ("image", "iVBOR", "image/png")


def test_an_empty_result_says_so():
    converted = mcp_result(ToolResultMessage(tool_call_id="c1", tool_name="python", content=[]))
    assert [block.text for block in converted.content] == ["(no output)"] and converted.is_error is False


def test_the_client_is_named_as_it_introduced_itself():
    def session(**info):
        return SimpleNamespace(client_params=SimpleNamespace(client_info=SimpleNamespace(**info)))

    assert client_name(session(name="claude-code", title=None)) == "claude-code"
    assert client_name(session(name="codex", title="Codex  CLI\n")) == "Codex CLI"
    assert client_name(session(name="x" * 100, title=None)) == "x" * 60
    assert client_name(SimpleNamespace(client_params=None)) == UNKNOWN_CLIENT
    assert client_name(session(name="", title="")) == UNKNOWN_CLIENT
