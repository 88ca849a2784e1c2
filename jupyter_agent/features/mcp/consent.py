"""Consent before a project's MCP server runs: a ``.mcp.json`` arrives with a cloned repository.

A server defined in a ``.mcp.json`` (the notebook's folder or the workspace root) starts a command
or sends headers, possibly with expanded secrets, to a URL: in ``ask`` mode the approval bar asks
first ("Allow once" starts it for this kernel: later turns of the kernel do not ask again; "Allow
for this session" and "Allow this exact call" also remember it in
``$JUPYTER_CONFIG_DIR/agent/mcp-trusted.json``, by its exact command, arguments, environment and URL); ``yolo`` starts it; ``readonly`` and a denial leave it out (for
the rest of the kernel, no question every turn). Servers from the user's own file and from
``AgentMagics.mcp_servers`` are the user's and never asked about.
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping, Sequence

from jupyter_agent.features.mcp.config import CONFIGURED, ServerConfig, user_config
from jupyter_agent.files import parse_json
from jupyter_agent.runtime import ApprovalRequest

if TYPE_CHECKING:
    from jupyter_agent.runtime.permissions import PermissionMode

TRUST_FILE = "mcp-trusted.json"
Ask = Callable[[ApprovalRequest], Awaitable[str] | str]
_denied: set[str] = set()  # fingerprints refused in this kernel
_allowed: set[str] = set()  # fingerprints allowed in this kernel ("Allow once": it starts for this kernel)


def trust_file(environ: Mapping[str, str] | None = None) -> Path:
    return user_config(os.environ if environ is None else environ).with_name(TRUST_FILE)


def needs_consent(server: ServerConfig, environ: Mapping[str, str] | None = None) -> bool:
    return server.source not in (CONFIGURED, str(user_config(os.environ if environ is None else environ)))


def _trusted(path: Path) -> set[str]:
    try:
        data = parse_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {item for item in data.get("trusted", []) if isinstance(item, str)} if isinstance(data, dict) else set()


def _key(server: ServerConfig) -> str:
    return f"{server.name}:{server.fingerprint()}"


def remember(server: ServerConfig, path: Path) -> None:
    trusted = _trusted(path) | {_key(server)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"trusted": sorted(trusted)}, indent=2) + "\n", encoding="utf-8")


def request_for(server: ServerConfig, redact: Callable[[str], str]) -> ApprovalRequest:
    what = {"url": server.url} if server.transport == "http" else {"command": server.command, "args": list(server.args)}
    if server.env or server.headers:
        what["with"] = ", ".join([*(f"env {name}" for name in server.env), *(f"header {name}" for name in server.headers)])
    return ApprovalRequest(
        tool_name=f"MCP server {server.name}",
        args=json.loads(redact(json.dumps(what))),
        label=f"start the MCP server {server.name!r} defined in {server.source}",
    )


async def consented(
    servers: Sequence[ServerConfig],
    *,
    mode: PermissionMode,
    ask: Ask | None,
    redact: Callable[[str], str],
    problem: Callable[[str], None],
    trust: Path | None = None,
) -> list[ServerConfig]:
    """The servers that may start; each one left out is a ``problem`` line saying why."""
    trust = trust or trust_file()
    trusted = _trusted(trust)
    allowed = []
    for server in servers:
        key = _key(server)
        if not needs_consent(server) or key in trusted or key in _allowed or mode == "yolo":
            allowed.append(server)
            continue
        if key in _denied or mode == "readonly" or ask is None:
            why = "denied" if key in _denied else "it needs approval" + (" (read-only mode)" if mode == "readonly" else "")
            problem(f"MCP server {server.name!r} from {server.source} was not started: {why}")
            continue
        answer = ask(request_for(server, redact))
        decision = await answer if inspect.isawaitable(answer) else answer
        if decision in ("tool", "call"):
            remember(server, trust)
        if decision in ("once", "tool", "call"):
            _allowed.add(key)
            allowed.append(server)
        else:
            _denied.add(key)
            problem(f"MCP server {server.name!r} from {server.source} was not started: denied")
    return allowed
