"""One MCP server's connection against the real demo server (stdio and streamable HTTP)."""

import asyncio

import pytest
from mcp_servers import stdio_config

from jupyter_agent.features.mcp.config import ServerConfig
from jupyter_agent.features.mcp.connection import ServerConnection, ServerUnavailable
from jupyter_agent.features.mcp.process import is_alive
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


async def test_a_stdio_server_starts_lists_answers_and_stops_with_its_process(tmp_path):
    connection = ServerConnection(stdio_config(), tmp_path / "mcp-demo.log")
    await connection.wait_ready()
    assert connection.status == "running" and {"echo", "add_note", "hang"} <= {tool.name for tool in connection.tools}
    result = await connection.call_tool("echo", {"text": "hi"})
    assert result.content[0].text == "echo: hi"
    pid = connection.pid
    assert pid and is_alive(pid)
    await connection.stop()
    assert connection.status == "stopped" and not is_alive(pid)
    log = (tmp_path / "mcp-demo.log").read_text()
    assert "starting demo" in log and "echo called with 2 characters" in log  # stderr went to the log


async def test_a_crash_mid_call_is_an_error_and_the_status_says_crashed(tmp_path):
    connection = ServerConnection(stdio_config(), tmp_path / "mcp-demo.log")
    await connection.wait_ready()
    with pytest.raises(Exception) as caught:
        await connection.call_tool("crash", {})
    assert "Connection closed" in str(caught.value)
    assert connection.status == "crashed" and connection.last_error == "the server closed the connection"
    with pytest.raises(ServerUnavailable, match="crashed"):
        await connection.call_tool("echo", {"text": "x"})
    await connection.stop()


async def test_a_hanging_call_times_out_and_the_server_keeps_serving(tmp_path):
    connection = ServerConnection(stdio_config(call_timeout=0.5), tmp_path / "mcp-demo.log")
    await connection.wait_ready()
    with pytest.raises(Exception, match="timed out"):
        await connection.call_tool("hang", {})
    assert (await connection.call_tool("echo", {"text": "still here"})).content[0].text == "echo: still here"
    await connection.stop()


async def test_a_server_that_never_starts_fails_within_its_start_timeout_and_is_killed(tmp_path):
    connection = ServerConnection(stdio_config("slow", "--never-start", start_timeout=1.0), tmp_path / "mcp-slow.log")
    started = asyncio.get_running_loop().time()
    with pytest.raises(ServerUnavailable, match="did not start within 1 s"):
        await connection.wait_ready()
    assert asyncio.get_running_loop().time() - started < 8
    assert connection.status == "failed"
    pidfile_pid = connection.pid
    assert pidfile_pid is None or not is_alive(pidfile_pid)


async def test_a_command_that_does_not_exist_names_the_problem(tmp_path):
    config = ServerConfig(name="nope", source="test", transport="stdio", command="no-such-mcp-server-xyz")
    connection = ServerConnection(config, tmp_path / "mcp-nope.log")
    with pytest.raises(ServerUnavailable) as caught:
        await connection.wait_ready()
    assert connection.status == "failed"
    assert "no-such-mcp-server-xyz" in connection.last_error and "failed to start" in str(caught.value)


async def test_tools_list_changed_is_noticed_and_relisted(tmp_path):
    connection = ServerConnection(stdio_config(), tmp_path / "mcp-demo.log")
    await connection.wait_ready()
    await connection.call_tool("grow", {})
    await wait_until(lambda: connection.tools_stale, 2, "tools/list_changed to be noticed")
    assert connection.tools_stale
    assert "extra" in {tool.name for tool in await connection.refresh_tools()}
    await connection.stop()


async def test_streamable_http_with_headers(http_server):
    config = ServerConfig(name="web", source="test", transport="http", url=http_server, headers={"X-Token": "abc123456"})
    connection = ServerConnection(config)
    await connection.wait_ready()
    assert (await connection.call_tool("echo", {"text": "over http"})).content[0].text == "echo: over http"
    await connection.stop()
    assert connection.status == "stopped"


async def test_an_http_server_that_is_not_there_fails_at_once_not_at_the_timeout():
    config = ServerConfig(name="down", source="test", transport="http", url="http://127.0.0.1:9/mcp", start_timeout=60)
    connection = ServerConnection(config)
    started = asyncio.get_running_loop().time()
    with pytest.raises(ServerUnavailable, match=r"MCP server 'down' failed to start: cannot connect to 127.0.0.1:9"):
        await connection.wait_ready()
    assert asyncio.get_running_loop().time() - started < 30 and connection.status == "failed"
