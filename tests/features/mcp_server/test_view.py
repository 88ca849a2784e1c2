import json
import shlex
from types import SimpleNamespace

from jupyter_agent.features.mcp_server.view import (
    claude_command,
    codex_commands,
    mcp_json_entry,
    serving_report,
    stopped_report,
    token_html,
)

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
    server = SimpleNamespace(url=URL, token=TOKEN, settings=SimpleNamespace(permissions="ask"), replaces=False)
    report = serving_report(server, ["variables", "python"], "serve", reveal=True)  # the terminal's
    assert f"`{URL}`" in report.markdown and f"Bearer token: `{TOKEN}`" in report.markdown
    assert "wait for your approval in the panel below" in report.text and "session serve" in report.text
    stopped = SimpleNamespace(url=URL, calls=SimpleNamespace(calls=1), session=SimpleNamespace(name="serve"), refused=0)
    assert stopped_report(stopped).text == f"Stopped the MCP server at {URL}: 1 call served, recorded in session serve."
    stopped.refused = 3
    assert stopped_report(stopped).text.endswith("recorded in session serve. 3 refused requests: wrong token.")


def test_after_a_restart_the_commands_replace_the_old_entry_and_codex_is_beside_claude_code():
    assert shlex.split(claude_command(URL, TOKEN, replace=True))[:5] == ["claude", "mcp", "remove", "jupyter-kernel", "&&"]
    assert claude_command(URL, TOKEN, replace=True).endswith(claude_command(URL, TOKEN))
    export, add = codex_commands(URL, TOKEN).split("\n")
    assert shlex.split(export) == ["export", f"JUPYTER_KERNEL_MCP_TOKEN={TOKEN}"]
    assert shlex.split(add) == [
        "codex",
        "mcp",
        "add",
        "jupyter-kernel",
        "--url",
        URL,
        "--bearer-token-env-var",
        "JUPYTER_KERNEL_MCP_TOKEN",
    ]
    assert codex_commands(URL, TOKEN, replace=True).split("\n")[1] == f"codex mcp remove jupyter-kernel && {add}"
    server = SimpleNamespace(url=URL, token=TOKEN, settings=SimpleNamespace(permissions="yolo"), replaces=True)
    report = serving_report(server, ["python"], "serve", reveal=True)
    assert "given to clients before (its token is void now): replace it in each client" in report.markdown
    assert claude_command(URL, TOKEN, replace=True) in report.markdown and codex_commands(URL, TOKEN, True) in report.markdown
    assert f"Codex: export JUPYTER_KERNEL_MCP_TOKEN={TOKEN} && codex mcp remove jupyter-kernel && codex mcp add" in report.text


def test_a_notebook_shows_the_token_only_in_the_live_panel():
    server = SimpleNamespace(url=URL, token=TOKEN, settings=SimpleNamespace(permissions="ask"), replaces=False)
    saved = serving_report(server, ["python"], "serve")
    assert TOKEN not in saved.markdown and TOKEN not in saved.text
    assert "Bearer token: `<token: in the live panel below>` (never saved in the notebook)" in saved.markdown
    live = token_html(server)
    assert live.count(f'data-copy="{TOKEN}"') == 1 and live.count("Copy</button>") == 4
    assert "never saved in the notebook" in live
