"""An external MCP client for the serve tests: the SDK's streamable HTTP client, in a thread of its own.

The kernel harness is synchronous (it polls the kernel's channels), so each client call runs on
its own event loop in a thread, and the test drives the kernel (clicks, cells) meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/mcp")
# The token where a user reads it: the serve cell's live panel (its "Bearer token" row, the copy
# button's value); the saved output only says MASKED_TOKEN.
LIVE_TOKEN = re.compile(r'<b>Bearer token</b> <button class="ja-copy" data-copy="([A-Za-z0-9_-]{20,})"')


@dataclass
class Served:
    url: str
    port: int
    token: str


def served_from(kernel: Any, msg_id: str) -> Served:
    """The server a ``%agent serve`` cell started: its URL from the cell's output, its token from the
    cell's live panel (waited for: the panel's content arrives after the page's hello); the cell's
    outputs as a frontend saves them must hold no token."""
    from jupyter_agent.features.mcp_server.view import MASKED_TOKEN

    output = kernel.outputs_of(msg_id)
    url = URL.search(output)
    assert url, f"no URL in the serve cell's output:\n{output}"
    live = kernel.wait_for(lambda: LIVE_TOKEN.search(kernel.widget_text(msg_id)), what="the token in the serve cell's live panel")
    token = live.group(1)
    saved = json.dumps(kernel.cell_outputs(msg_id))
    assert token not in saved and MASKED_TOKEN in saved, f"the saved output shows the token or no mask:\n{saved}"
    return Served(url.group(0), int(url.group(1)), token)


async def _session_call(url: str, token: str | None, action: Any, progress: list[str]) -> Any:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await action(session, progress)


@dataclass
class Call:
    """One client session running ``action(session, progress)`` in a thread; ``wait()`` gives its value."""

    url: str
    token: str | None
    action: Any
    progress: list[str] = field(default_factory=list)
    value: Any = None
    error: BaseException | None = None

    def start(self) -> "Call":
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.value = asyncio.run(_session_call(self.url, self.token, self.action, self.progress))
        except BaseException as error:  # noqa: BLE001 - handed to the test
            self.error = error

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def wait(self, timeout: float = 60) -> Any:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the MCP call did not finish in time"
        if self.error is not None:
            raise self.error
        return self.value


def tool_call(name: str, arguments: dict[str, Any] | None = None) -> Any:
    async def action(session: Any, progress: list[str]) -> Any:
        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(message or "")

        return await session.call_tool(name, arguments or {}, progress_callback=on_progress)

    return action


async def list_tools(session: Any, progress: list[str]) -> list[str]:
    return [tool.name for tool in (await session.list_tools()).tools]


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")
