"""``%agent mcp``, ``%agent mcp tools NAME`` and ``%agent mcp restart NAME``."""

from __future__ import annotations

import asyncio
from typing import Any

from IPython.core.error import UsageError

from jupyter_agent.features.mcp import register_secrets, registry, session_config
from jupyter_agent.features.mcp.view import servers_view, tools_view
from jupyter_agent.notebook.report import Report

_tasks: set[asyncio.Task[Any]] = set()  # restarts running in the background


def mcp_command(magics: Any, tokens: list[str], usage: str) -> Report:
    session = magics.sessions.recent()
    config = session_config(session, dict(magics.mcp_servers or {}))
    redactor = session.store.redactor
    register_secrets(redactor, list(config.servers.values()))
    servers = registry()
    if not tokens:
        return Report(*servers_view(config, servers, redactor.redact))
    action, rest = tokens[0], tokens[1:]
    if action not in ("tools", "restart") or len(rest) != 1:
        raise UsageError(f"use %agent mcp, %agent mcp tools NAME or %agent mcp restart NAME\n{usage}")
    name = rest[0]
    if name not in config.servers and servers.get(name) is None:
        raise UsageError(f"no MCP server named {name!r}; configured: {', '.join(config.servers) or 'none'}")
    if action == "tools":
        return Report(*tools_view(name, servers.get(name)))
    return _restart(name, config, servers)


def _restart(name: str, config: Any, servers: Any) -> Report:
    connection = servers.get(name)
    if connection is None:
        return Report(f"MCP server `{name}` is not running; the next turn that uses it starts it.")
    if name in config.servers:
        connection.config = config.servers[name]  # the restart picks up an edited configuration
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        from IPython.core.async_helpers import get_asyncio_loop

        get_asyncio_loop().run_until_complete(servers.restart(name))
        return Report(f"Restarted MCP server `{name}`: {connection.status}.")
    task = loop.create_task(servers.restart(name))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)
    return Report(f"Restarting MCP server `{name}`; `%agent mcp` shows its status.")
