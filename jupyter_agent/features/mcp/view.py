"""What ``%agent mcp`` shows: the servers with status, tool count and last error; one server's tools.

Each function returns (Markdown, plain text); secrets never appear (``env`` and ``headers`` are
shown by name only, errors pass through the session's redactor).
"""

from __future__ import annotations

from typing import Any, Callable

from jupyter_agent.features.mcp.config import McpConfig
from jupyter_agent.features.mcp.registry import McpRegistry
from jupyter_agent.features.mcp.tools import is_read_only, tool_name

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


def tools_view(name: str, connection: Any) -> tuple[str, str]:
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
