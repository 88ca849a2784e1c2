"""What ``%agent serve`` prints: the URL, the token, and how to give them to a client.

Ready to paste: Claude Code's ``claude mcp add`` command and a ``.mcp.json`` entry (the format
Claude Code, Cursor, Codex and most MCP clients read). The token lives as long as the server:
``%agent serve stop`` (or the kernel's end) makes it worthless, and the serve cell's output,
where it is shown, is replaced by the record of the calls when the server stops.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from jupyter_agent.notebook.report import Report

CLIENT_ENTRY_NAME = "jupyter-kernel"


def claude_command(url: str, token: str) -> str:
    header = shlex.quote(f"Authorization: Bearer {token}")
    return f"claude mcp add --transport http {CLIENT_ENTRY_NAME} {url} --header {header}"


def mcp_json_entry(url: str, token: str) -> str:
    entry = {"mcpServers": {CLIENT_ENTRY_NAME: {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}}}
    return json.dumps(entry, indent=2)


def serving_report(server: Any, tool_names: list[str], session: str) -> Report:
    url, token, mode = server.url, server.token, server.settings.permissions
    tools = ", ".join(tool_names)
    asks = {
        "ask": "mutating calls wait for your approval in the panel below",
        "readonly": "mutating calls are refused (read-only)",
        "yolo": "every call runs without asking",
    }[mode]
    markdown = "\n\n".join(
        [
            f"**Serving this kernel over MCP** at `{url}` (127.0.0.1 only), permissions `{mode}`: {asks}.",
            f"Tools: {tools}. Calls are recorded in session `{session}`. Stop with `%agent serve stop`.",
            f"Bearer token: `{token}`",
            f"Claude Code:\n\n```sh\n{claude_command(url, token)}\n```",
            f"`.mcp.json`:\n\n```json\n{mcp_json_entry(url, token)}\n```",
        ]
    )
    text = "\n".join(
        [
            f"Serving this kernel over MCP at {url} (127.0.0.1 only), permissions {mode}: {asks}.",
            f"Tools: {tools}. Calls are recorded in session {session}. Stop with %agent serve stop.",
            f"Bearer token: {token}",
            f"Claude Code: {claude_command(url, token)}",
            f".mcp.json: {json.dumps(json.loads(mcp_json_entry(url, token)))}",
        ]
    )
    return Report(markdown, text)


def stopped_report(server: Any) -> Report:
    calls = server.calls.calls if server.calls is not None else 0
    text = f"Stopped the MCP server at {server.url}: {calls} call{'s' if calls != 1 else ''} served, recorded in session {server.session.name}."
    return Report(
        text.replace(server.url, f"`{server.url}`").replace(f"session {server.session.name}", f"session `{server.session.name}`"),
        text,
    )


__all__ = ["CLIENT_ENTRY_NAME", "claude_command", "mcp_json_entry", "serving_report", "stopped_report"]
