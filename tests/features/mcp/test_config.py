"""MCP configuration: the file format, ${VAR} expansion, precedence and one-line problems."""

import json
from pathlib import Path

import pytest

from jupyter_agent.features.mcp.config import CONFIGURED, ConfigProblem, expand, load_config, parse_servers, read_file, select

ENV = {"TOKEN": "tok-123456", "HOME": "/home/u"}


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_stdio_and_http_entries_with_expansion(tmp_path):
    data = {
        "mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server", "${HOME}/data"], "env": {"API_TOKEN": "${TOKEN}"}, "cwd": "sub"},
            "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "callTimeout": 5},
        }
    }
    config = parse_servers(data, "x.json", ENV, tmp_path)
    files, web = config.servers["files"], config.servers["web"]
    assert (files.transport, files.command, files.args) == ("stdio", "npx", ("-y", "server", "/home/u/data"))
    assert files.env == {"API_TOKEN": "tok-123456"} and files.cwd == str(tmp_path / "sub")
    assert (web.transport, web.headers, web.call_timeout) == ("http", {"Authorization": "Bearer tok-123456"}, 5.0)
    assert "tok-123456" not in files.describe() + web.describe()  # secrets show as names only
    assert set(files.secrets().values()) == {"tok-123456"} and config.problems == []


def test_a_default_after_colon_dash_and_an_unset_variable():
    assert expand("${MISSING:-fallback}/x", {}, "args") == "fallback/x"
    with pytest.raises(ConfigProblem, match=r"args uses \$\{MISSING\}, which is not set"):
        expand("${MISSING}", {}, "args")


@pytest.mark.parametrize(
    "entry, problem",
    [
        ({"command": "x", "args": "not a list"}, "args must be a list of strings"),
        ({"args": []}, 'needs either "command" (stdio) or "url" (streamable HTTP)'),
        ({"command": "x", "url": "http://a"}, 'needs either "command" (stdio) or "url" (streamable HTTP)'),
        ({"url": "ftp://a"}, "url must start with http:// or https://, got 'ftp://a'"),
        ({"command": "x", "env": {"A": 1}}, "env must be an object of strings"),
        ({"type": "sse", "url": "http://a"}, "type 'sse' is not supported (use stdio, or http for streamable HTTP)"),
        ({"command": "x", "startTimeout": 0}, "startTimeout must be a number of seconds above 0 and at most 600, got 0"),
        (
            {"command": "x", "startTimeout": float("inf")},
            "startTimeout must be a number of seconds above 0 and at most 600, got Infinity",
        ),
        (
            {"command": "x", "callTimeout": float("nan")},
            "callTimeout must be a number of seconds above 0 and at most 600, got NaN",
        ),
        (
            {"command": "x", "callTimeout": 31_536_000},
            "callTimeout must be a number of seconds above 0 and at most 600, got 31536000",
        ),
        ({"command": "x", "callTimeout": "60"}, "callTimeout must be a number of seconds above 0 and at most 600, got a string"),
        ({"command": "x", "comand": "y"}, "unknown key 'comand' (known: command, args, env, cwd, url, headers, type)"),
        ({"command": "${NOPE}"}, None),  # command is not expanded: only env, args and headers are
        ({"command": "x", "env": {"K": "${NOPE}"}}, "env.K uses ${NOPE}, which is not set"),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_source_and_server(tmp_path, entry, problem):
    config = parse_servers({"mcpServers": {"bad": entry, "good": {"command": "ok"}}}, "/p/.mcp.json", {}, tmp_path)
    assert "good" in config.servers
    if problem is None:
        assert config.problems == [] and config.servers["bad"].command == "${NOPE}"
    else:
        assert config.problems == [f"MCP config /p/.mcp.json: server 'bad': {problem}"] and "bad" not in config.servers


def test_a_malformed_file_is_one_clear_line(tmp_path):
    path = write(tmp_path / ".mcp.json", '{"mcpServers": {"a": {"command": "x",}}}')
    config = read_file(path, {})
    assert config.servers == {} and config.problems == [
        f"MCP config {path}: invalid JSON at line 1 column 38: Expecting property name enclosed in double quotes"
    ]
    assert read_file(tmp_path / "absent.json", {}) is None
    wrong = write(tmp_path / "list.json", "[1, 2]")
    assert read_file(wrong, {}).problems == [f'MCP config {wrong}: expected an object with "mcpServers", got a list']


def test_infinity_in_a_file_is_refused_and_json_nested_100_000_deep_is_one_line(tmp_path):
    path = write(tmp_path / ".mcp.json", '{"mcpServers": {"forever": {"command": "x", "startTimeout": Infinity}}}')
    assert read_file(path, {}).problems == [
        f"MCP config {path}: server 'forever': startTimeout must be a number of seconds above 0 and at most 600, got Infinity"
    ]
    deep = write(tmp_path / "deep.json", '{"mcpServers": ' + "[" * 100_000 + "]" * 100_000 + "}")
    config = read_file(deep, {})
    assert config.servers == {} and len(config.problems) == 1
    assert config.problems[0].startswith(f"MCP config {deep}: invalid JSON: nested too deeply (more than ")


def test_precedence_configured_over_notebook_folder_over_workspace_over_user(tmp_path):
    user = write(
        tmp_path / "home" / "mcp.json",
        {"mcpServers": {"a": {"command": "user"}, "b": {"command": "user"}, "c": {"command": "user"}, "d": {"command": "user"}}},
    )
    workspace = tmp_path / "ws"
    notebook_dir = workspace / "notebooks"
    write(
        workspace / ".mcp.json",
        {"mcpServers": {"b": {"command": "workspace"}, "c": {"command": "workspace"}, "d": {"command": "workspace"}}},
    )
    write(notebook_dir / ".mcp.json", {"mcpServers": {"c": {"command": "notebook"}, "d": {"command": "notebook"}}})
    configured = {"d": {"command": "configured"}}
    config = load_config(notebook_dir, workspace, configured, environ={}, user_file=user)
    assert {name: server.command for name, server in config.servers.items()} == {
        "a": "user",
        "b": "workspace",
        "c": "notebook",
        "d": "configured",
    }
    assert config.servers["d"].source == CONFIGURED and config.servers["c"].source == str(notebook_dir / ".mcp.json")
    assert config.servers["c"].cwd == str(notebook_dir)  # a stdio server runs in its file's folder by default


def test_the_notebook_folder_at_the_workspace_root_is_read_once_and_a_bad_file_spares_the_others(tmp_path):
    write(tmp_path / ".mcp.json", "{broken")
    user = write(tmp_path / "user.json", {"mcpServers": {"u": {"command": "x"}}})
    config = load_config(tmp_path, tmp_path, None, environ={}, user_file=user)
    assert list(config.servers) == ["u"] and len(config.problems) == 1 and "invalid JSON" in config.problems[0]


def test_disabled_removes_a_lower_entry_and_select_picks_names(tmp_path):
    user = write(tmp_path / "user.json", {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}})
    config = load_config(tmp_path, tmp_path, {"b": {"command": "y", "disabled": True}}, environ={}, user_file=user)
    assert list(config.servers) == ["a"]
    assert select(config, None)[0] == [config.servers["a"]]
    assert select(config, ()) == ([], [])
    chosen, problems = select(config, ("a", "zz"))
    assert chosen == [config.servers["a"]]
    assert problems == ["--mcp names an unknown MCP server 'zz' (configured: a)"]
