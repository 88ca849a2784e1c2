"""``%agent mcp``, ``%agent mcp tools NAME`` and ``%agent mcp restart NAME``.

What it shows: the servers with status, tool count and last error; one server's tools. Each view
function returns (Markdown, plain text); secrets never appear (``env`` and ``headers`` are shown
by name only, errors pass through the session's redactor). In a turn, the MCP client speaks
through the panel's note only (``features/mcp/turn.py``).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Callable

from IPython.core.error import UsageError

from jupyter_agent.features.mcp import register_secrets, registry, session_config
from jupyter_agent.features.mcp.config import McpConfig
from jupyter_agent.features.mcp.connection import ServerConnection
from jupyter_agent.features.mcp.registry import McpRegistry
from jupyter_agent.features.mcp.tools import is_read_only, tool_name
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import Subcommand, arg
from jupyter_agent.notebook.views import FeatureViews

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics

NO_SERVERS = (
    "No MCP servers configured. Add them to `.mcp.json` beside the notebook, "
    "`~/.jupyter/agent/mcp.json` or `%config AgentMagics.mcp_servers`."
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def servers_view(config: McpConfig, servers: McpRegistry, redact: Callable[[str], str]) -> tuple[str, str]:
    names = list(config.servers) + [name for name in servers.connections if name not in config.servers]
    problems = [redact(problem) for problem in config.problems]
    if not names:
        text = "\n".join([NO_SERVERS, *problems])
        return text, text.replace("`", "")
    rows = ["| server | status | tools | source | last error |", "|---|---|---|---|---|"]
    lines = []
    for name in names:
        connection = servers.get(name)
        server = config.servers.get(name) or (connection.config if connection else None)
        status: str = connection.status if connection else "not started"
        if name not in config.servers:
            status += " (no longer configured)"
        count = str(len(connection.tools)) if connection and connection.status == "running" else "-"
        error = redact(connection.last_error) if connection and connection.last_error else ""
        where = f"{server.source}: {redact(server.describe())}" if server else ""
        rows.append(f"| `{name}` | {status} | {count} | {_cell(where)} | {_cell(error) or '-'} |")
        lines.append(f"{name}: {status}, {count} tools, {where}" + (f"; last error: {error}" if error else ""))
    markdown = "\n".join(rows)
    if problems:
        markdown += "\n\n" + "\n".join(f"- {_cell(problem)}" for problem in problems)
        lines += problems
    return markdown, "\n".join(lines)


def tools_view(name: str, connection: ServerConnection | None) -> tuple[str, str]:
    if connection is None or connection.status != "running":
        state = "has not started yet (a turn starts it)" if connection is None else f"is {connection.status}"
        text = f"MCP server `{name}` {state}: its tools are listed once it runs."
        return text, text.replace("`", "")
    if not connection.tools:
        return f"MCP server `{name}` offers no tools.", f"MCP server {name} offers no tools."
    rows = ["| tool | as the agent sees it | gated | description |", "|---|---|---|---|"]
    lines = []
    for tool in connection.tools:
        gated = "no (read-only)" if is_read_only(tool) else "yes"
        description = (tool.description or "").strip().splitlines()[0] if tool.description else ""
        rows.append(f"| `{tool.name}` | `{tool_name(name, tool.name)}` | {gated} | {_cell(description)} |")
        lines.append(f"{tool.name} ({tool_name(name, tool.name)}, gated: {gated}): {description}")
    return "\n".join(rows), "\n".join(lines)


_tasks: set[asyncio.Task[ServerConnection]] = set()  # restarts running in the background


def mcp_command(magics: AgentMagics, tokens: list[str], usage: str) -> Report:
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


def _restart(name: str, config: McpConfig, servers: McpRegistry) -> Report:
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


def _mcp(magics: AgentMagics, args: argparse.Namespace) -> Report:
    return mcp_command(magics, args.words, MCP_COMMAND.parser().format_usage().strip())


MCP_COMMAND = Subcommand(
    "mcp",
    "The MCP servers of this notebook: list them, a server's tools, or restart one.",
    _mcp,
    (arg("words", nargs="*", metavar="tools NAME | restart NAME", help="what to show or do (default: the servers)"),),
)

VIEWS = FeatureViews(commands=(MCP_COMMAND,))

__all__ = ["MCP_COMMAND", "NO_SERVERS", "VIEWS", "mcp_command", "servers_view", "tools_view"]
