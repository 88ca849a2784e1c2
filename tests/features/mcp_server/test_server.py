"""McpServe in process: one per kernel, 401 without the token, the port closed the moment it stops."""

import asyncio

import pytest
from serve_fakes import Renderer, Session, tools

from jupyter_agent.features.mcp_server import AlreadyServingError, McpServe, ServeSettings, serving
from jupyter_agent.testing.waiting import listening

pytestmark = pytest.mark.anyio


async def test_a_server_serves_refuses_a_second_and_stop_closes_its_port_at_once(tmp_path):
    import httpx2

    renderer = Renderer()
    server = McpServe(tools=tools(), session=Session(tmp_path / "serve.jsonl"), renderer=renderer, shell=None)
    server.settings = ServeSettings(cell_running=False)
    server.start()
    try:
        assert serving() is server and server.url == f"http://127.0.0.1:{server.port}/mcp"
        second = McpServe(tools=tools(), session=Session(tmp_path / "other.jsonl"), renderer=Renderer(), shell=None)
        with pytest.raises(AlreadyServingError, match=f"already serving at {server.url}"):
            second.start()
        async with httpx2.AsyncClient() as http:
            response = await http.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert response.status_code == 401 and server.refused == 1
    finally:
        server.stop()
    assert not listening(server.port) and serving() is None  # closed before the task has even wound down
    await asyncio.wait_for(server.wait_stopped(), 10)
    assert renderer.states[-1] == ("stopped", "no longer serving") and renderer.finished == 1


async def test_a_stop_click_on_another_thread_is_handed_to_the_loop(tmp_path):
    import threading

    server = McpServe(tools=tools(), session=Session(tmp_path / "serve.jsonl"), renderer=Renderer(), shell=None)
    server.settings = ServeSettings(cell_running=False)
    server.start()
    clicker = threading.Thread(target=server.stop)  # JupyterLab delivers widget clicks on a kernel subshell
    clicker.start()
    clicker.join(5)
    assert listening(server.port)  # not touched from the other thread: the loop does it
    await asyncio.wait_for(server.wait_stopped(), 10)
    assert not listening(server.port) and server.stopped
