"""The kernel's MCP servers: started on the first turn that needs them, reused, stopped at shutdown.

One registry per kernel (``registry()``). ``ensure`` starts the servers a turn needs in parallel,
each within its start timeout, and reports progress; a running server whose configuration did
not change is reused as is (no request at all), one whose configuration changed is restarted, a
crashed one starts again, and one that failed to start stays failed until ``restart`` (the next
turn must not wait out the same timeout again). At interpreter exit every stdio server's process
group is killed; the launcher makes Linux kill them too if the kernel itself is killed.
"""

from __future__ import annotations

import asyncio
import atexit
from pathlib import Path
from typing import Callable, Sequence

from jupyter_agent.features.mcp.config import ServerConfig
from jupyter_agent.features.mcp.connection import ServerConnection, ServerUnavailable

Progress = Callable[[str], None]


def log_path(folder: Path, name: str) -> Path:
    """The server's stderr log: ``mcp-<name>.log`` in the session folder (``<notebook stem>.agent/``)."""
    safe = "".join(char if char.isalnum() or char in "-_." else "_" for char in name)
    return folder / f"mcp-{safe}.log"


class McpRegistry:
    def __init__(self) -> None:
        self.connections: dict[str, ServerConnection] = {}
        self._exit_hook = False

    def get(self, name: str) -> ServerConnection | None:
        return self.connections.get(name)

    async def ensure(
        self,
        configs: Sequence[ServerConfig],
        *,
        log_folder: Path,
        redact: Callable[[str], str],
        progress: Progress = lambda text: None,
    ) -> list[ServerConnection]:
        """The connections for ``configs``, started as needed; check each one's ``status``."""
        self._register_exit_hook()
        connections, starting = [], []
        for config in configs:
            connection = self.connections.get(config.name)
            if connection is not None and connection.config.fingerprint() != config.fingerprint():
                await connection.stop()
                connection = None
            if connection is None:
                connection = ServerConnection(config, log_path(log_folder, config.name), redact)
                self.connections[config.name] = connection
            connection.config = config  # timeouts may change without a restart
            if connection.status == "crashed":
                await connection.stop()  # lets the old session wind down before a fresh start
            connection.redact = redact
            if connection.status in ("stopped", "crashed") or (connection.status == "starting" and not connection.alive):
                starting.append(connection)
            connections.append(connection)
        if starting or any(connection.status == "starting" for connection in connections):
            await self._start_all([c for c in connections if c.status == "starting" or c in starting], progress)
        return connections

    async def _start_all(self, connections: list[ServerConnection], progress: Progress) -> None:
        waiting = {connection.name for connection in connections}
        ready: list[str] = []

        def show() -> None:
            text = "starting MCP servers: " + ", ".join(sorted(waiting)) + "…"
            progress(text + (f" ({', '.join(ready)} ready)" if ready else ""))

        async def start(connection: ServerConnection) -> None:
            try:
                await connection.wait_ready()
                ready.append(connection.name)
            except ServerUnavailable:
                pass
            finally:
                waiting.discard(connection.name)
                if waiting:
                    show()

        show()
        try:
            await asyncio.gather(*(start(connection) for connection in connections))
        finally:
            progress("")

    async def restart(self, name: str) -> ServerConnection:
        connection = self.connections[name]
        await connection.stop()
        try:
            await connection.wait_ready()
        except ServerUnavailable:
            pass
        return connection

    async def stop_all(self) -> None:
        await asyncio.gather(*(connection.stop() for connection in self.connections.values()))

    def kill_all(self) -> None:
        """Synchronous, for interpreter exit: no event loop is needed to kill a process group."""
        for connection in list(self.connections.values()):
            connection.kill_now()

    def _register_exit_hook(self) -> None:
        if not self._exit_hook:
            atexit.register(self.kill_all)
            self._exit_hook = True


_REGISTRY = McpRegistry()


def registry() -> McpRegistry:
    return _REGISTRY
