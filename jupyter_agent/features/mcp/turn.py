"""MCP in one turn: the servers it uses, their tools, and what the panel says about them.

``McpTurn.open`` resolves the configuration, starts what is not running (the panel shows
"starting MCP servers: a, b…" meanwhile) and makes the tools. Every problem (a malformed file, a
server that did not start, a call that failed) becomes one line of the panel's note; the turn
goes on without what failed. ``refresh`` re-lists a server's tools (the feature calls it before the
next step after the server announced ``notifications/tools/list_changed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Sequence, TypeVar

from jupyter_agent.features.mcp.config import ServerConfig
from jupyter_agent.features.mcp.connection import ServerConnection, ServerUnavailable
from jupyter_agent.features.mcp.registry import McpRegistry, registry
from jupyter_agent.features.mcp.tools import server_tools
from jupyter_agent.loop import AgentTool

_REFRESH_TIMEOUT = 10.0
Note = Callable[[str], None]


@dataclass
class McpTurn:
    note: Note = lambda text: None
    redact: Callable[[str], str] = lambda text: text
    connections: list[ServerConnection] = field(default_factory=list)
    tools: list[AgentTool] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _by_server: dict[str, list[AgentTool]] = field(default_factory=dict)

    @classmethod
    async def open(
        cls,
        configs: Sequence[ServerConfig],
        problems: Sequence[str] = (),
        *,
        log_folder: Path,
        redact: Callable[[str], str],
        note: Note,
        servers: McpRegistry | None = None,
    ) -> "McpTurn":
        turn = cls(note=note, redact=redact)
        for problem in problems:
            turn.problem(problem)
        if not configs:
            return turn
        servers = servers or registry()
        turn.connections = await servers.ensure(configs, log_folder=log_folder, redact=redact, progress=turn._progress)
        taken: set[str] = set()
        for connection in turn.connections:
            if connection.status == "running":
                turn._by_server[connection.name] = server_tools(connection, on_error=turn.problem, redact=redact, taken=taken)
            else:
                hint = "" if connection.status != "failed" else f" (`%agent mcp restart {connection.name}` tries again)"
                turn.problem(f"MCP server {connection.name!r} is unavailable: {connection.last_error or connection.status}{hint}")
        turn.tools = [tool for tools in turn._by_server.values() for tool in tools]
        turn.show()
        return turn

    def problem(self, text: str) -> None:
        text = self.redact(text)
        if text not in self.problems:
            self.problems.append(text)
        self.show()

    def show(self) -> None:
        """The panel's note: every MCP problem of this turn (re-shown after other notes cleared it)."""
        if self.problems:
            self.note(" · ".join(self.problems))

    def read_only_tools(self) -> list[AgentTool]:
        return [tool for tool in self.tools if tool.read_only]

    def system_section(self) -> str:
        down = [connection.name for connection in self.connections if connection.status != "running"]
        if not down:
            return ""
        return "MCP servers unavailable in this turn (their tools are missing; the user was told why): " + ", ".join(down) + "."

    def tools_stale(self) -> bool:
        """A server announced a changed tool list since it was last read."""
        return any(connection.tools_stale for connection in self.connections)

    async def refresh(self) -> None:
        """Re-lists the tools of every server whose list changed; a server that fails keeps its old list."""
        taken = {tool.name for name, tools in self._by_server.items() for tool in tools}
        for connection in self.connections:
            if not connection.tools_stale or connection.status != "running":
                continue
            taken -= {tool.name for tool in self._by_server.get(connection.name, [])}
            try:
                await _bounded(connection.refresh_tools(), _REFRESH_TIMEOUT)
            except (ServerUnavailable, Exception) as error:  # noqa: BLE001 - the old list stays in use
                self.problem(f"MCP server {connection.name!r}: could not re-list its tools: {error}")
                continue
            self._by_server[connection.name] = server_tools(connection, on_error=self.problem, redact=self.redact, taken=taken)
        self.tools = [tool for tools in self._by_server.values() for tool in tools]

    def _progress(self, text: str) -> None:
        if text:
            self.note(text)
        elif not self.problems:
            self.note("")


_T = TypeVar("_T")


async def _bounded(awaitable: Awaitable[_T], timeout: float) -> _T:
    import asyncio

    return await asyncio.wait_for(awaitable, timeout)
