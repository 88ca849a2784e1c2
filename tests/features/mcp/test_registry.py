"""The kernel's servers: parallel start with progress, reuse, restart on a changed config, kill at exit."""

import asyncio
import dataclasses

import pytest
from mcp_servers import stdio_config

from jupyter_agent.features.mcp.process import is_alive
from jupyter_agent.features.mcp.registry import McpRegistry, log_path

pytestmark = pytest.mark.anyio


async def test_servers_start_in_parallel_with_progress_and_are_reused(tmp_path):
    registry, notes = McpRegistry(), []
    configs = [stdio_config("a"), stdio_config("b")]
    first = await registry.ensure(configs, log_folder=tmp_path, redact=str, progress=notes.append)
    assert [c.status for c in first] == ["running", "running"]
    assert notes[0] == "starting MCP servers: a, b…" and notes[-1] == "" and len(notes) == 3
    pids = [c.pid for c in first]
    again_notes = []
    again = await registry.ensure(configs, log_folder=tmp_path, redact=str, progress=again_notes.append)
    assert [c.pid for c in again] == pids and again_notes == []  # reused: nothing started, nothing shown
    changed = dataclasses.replace(configs[0], args=(*configs[0].args, "--name", "other"))
    [restarted] = await registry.ensure([changed], log_folder=tmp_path, redact=str)
    assert restarted.pid != pids[0] and not is_alive(pids[0])
    await registry.stop_all()
    assert not any(is_alive(pid) for pid in [restarted.pid, pids[1]] if pid)


async def test_a_failed_server_is_not_retried_until_restart(tmp_path):
    registry = McpRegistry()
    config = stdio_config("slow", "--never-start", start_timeout=0.5)
    [connection] = await registry.ensure([config], log_folder=tmp_path, redact=str)
    assert connection.status == "failed"
    started = asyncio.get_running_loop().time()
    await registry.ensure([config], log_folder=tmp_path, redact=str)
    assert asyncio.get_running_loop().time() - started < 0.3 and connection.status == "failed"
    await registry.restart("slow")
    assert connection.status == "failed" and "did not start within 0.5 s" in connection.last_error
    assert log_path(tmp_path, "slow").read_text().count("starting slow") == 2


async def test_kill_all_ends_every_stdio_server_without_the_event_loop(tmp_path):
    registry = McpRegistry()
    connections = await registry.ensure([stdio_config("a"), stdio_config("b")], log_folder=tmp_path, redact=str)
    pids = [c.pid for c in connections]
    assert all(pids) and all(is_alive(pid) for pid in pids)
    registry.kill_all()  # what atexit runs: synchronous
    assert not any(is_alive(pid) for pid in pids)
    await registry.stop_all()
