"""McpServe in process: one per kernel, 401 without the token, the port closed the moment it stops."""

import asyncio

import pytest
from serve_fakes import Renderer, Session, tools

from jupyter_agent.features.mcp_server import AlreadyServingError, McpServe, ServeSettings, serving
from jupyter_agent.testing.waiting import assert_quiet_for, listening, wait_until

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


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leaky", "version": "1"}},
}


async def test_sessions_left_open_expire_and_their_number_is_capped(tmp_path):
    import httpx2

    server = McpServe(tools=tools(), session=Session(tmp_path / "serve.jsonl"), renderer=Renderer(), shell=None)
    server.settings = ServeSettings(cell_running=False, session_idle_seconds=0.5, max_sessions=3)
    server.start()
    try:
        headers = {"Authorization": f"Bearer {server.token}", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as http:
            opened = [await http.post(server.url, json=INITIALIZE, headers=headers) for _ in range(4)]
            assert [response.status_code for response in opened] == [200, 200, 200, 503]  # the fourth waits for room
            session_id = opened[0].headers["mcp-session-id"]
            probe = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}

            async def answers() -> bool:
                found = await http.post(server.url, json=probe, headers={**headers, "mcp-session-id": session_id})
                return found.status_code != 404

            for _ in range(20):  # bounded; each look is activity, so it comes only after an idle second
                await assert_quiet_for(1.0, lambda: not server.running, "the server stopping while its client idles")
                if not await answers():
                    break
            assert not await answers()  # expired: its id answers 404, the client initializes again
            assert (await http.post(server.url, json=INITIALIZE, headers=headers)).status_code == 200  # room again
    finally:
        server.stop()
    await asyncio.wait_for(server.wait_stopped(), 10)


async def test_stale_tokens_are_counted_in_the_panel_and_a_second_server_replaces_the_first(tmp_path):
    import httpx2

    renderer = Renderer()
    first = McpServe(tools=tools(), session=Session(tmp_path / "serve.jsonl"), renderer=renderer, shell=None)
    first.settings = ServeSettings(cell_running=False)
    first.start()
    assert not first.replaces  # the first server of this notebook: clients add it
    try:
        async with httpx2.AsyncClient() as http:
            for _ in range(3):
                stale = await http.post(first.url, json=INITIALIZE, headers={"Authorization": "Bearer old-token"})
                assert stale.status_code == 401
        assert renderer.states[-1] == ("running", f"serving at {first.url} · 1 refused request: wrong token")
        # The later ones are shown together, a moment later.
        await wait_until(lambda: renderer.states[-1][1].endswith("3 refused requests: wrong token"), 5, "3 refusals shown")
        assert renderer.states[-1] == ("running", f"serving at {first.url} · 3 refused requests: wrong token")
    finally:
        first.stop()
    await asyncio.wait_for(first.wait_stopped(), 10)
    second = McpServe(tools=tools(), session=Session(tmp_path / "serve2.jsonl"), renderer=Renderer(), shell=None)
    second.settings = ServeSettings(cell_running=False)
    second.start()
    try:
        assert second.replaces  # clients hold the first one's entry: they are told to replace it
    finally:
        second.stop()
    await asyncio.wait_for(second.wait_stopped(), 10)
