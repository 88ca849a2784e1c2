import json
import shlex
from types import SimpleNamespace

from jupyter_agent.features.mcp_server.view import claude_command, mcp_json_entry, serving_report, stopped_report

URL, TOKEN = "http://127.0.0.1:8765/mcp", "tok_en-123456789012345678901234"


def test_the_claude_code_command_pastes_as_one_shell_line():
    words = shlex.split(claude_command(URL, TOKEN))
    assert words == [
        "claude",
        "mcp",
        "add",
        "--transport",
        "http",
        "jupyter-kernel",
        URL,
        "--header",
        f"Authorization: Bearer {TOKEN}",
    ]


def test_the_mcp_json_entry_is_the_shared_format():
    entry = json.loads(mcp_json_entry(URL, TOKEN))["mcpServers"]["jupyter-kernel"]
    assert entry == {"type": "http", "url": URL, "headers": {"Authorization": f"Bearer {TOKEN}"}}


def test_the_reports_say_where_how_and_what():
    server = SimpleNamespace(url=URL, token=TOKEN, settings=SimpleNamespace(permissions="ask"))
    report = serving_report(server, ["variables", "python"], "serve")
    assert f"`{URL}`" in report.markdown and f"Bearer token: `{TOKEN}`" in report.markdown
    assert "wait for your approval in the panel below" in report.text and "session serve" in report.text
    stopped = SimpleNamespace(url=URL, calls=SimpleNamespace(calls=1), session=SimpleNamespace(name="serve"))
    assert stopped_report(stopped).text == f"Stopped the MCP server at {URL}: 1 call served, recorded in session serve."
