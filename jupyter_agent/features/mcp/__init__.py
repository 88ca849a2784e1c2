"""MCP client: tools from MCP servers configured beside the notebook (see ``docs/mcp.md``).

``open_turn`` is what a notebook turn calls: it reads the configuration, registers the servers'
secrets with the session's redactor, starts what is not running and returns the turn's
``McpTurn`` (its tools, its notes, its step hook). ``registry()`` holds the kernel's servers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from jupyter_agent.features.mcp.config import McpConfig, ServerConfig, load_config, select
from jupyter_agent.features.mcp.consent import Ask, consented
from jupyter_agent.features.mcp.registry import McpRegistry, registry
from jupyter_agent.features.mcp.turn import McpTurn
from jupyter_agent.session.site_policy import SitePolicyError, load_site_policy

if TYPE_CHECKING:
    from jupyter_agent.features.feature import TurnSession
    from jupyter_agent.model.secrets import Redactor
    from jupyter_agent.runtime.permissions import PermissionMode


def session_config(session: TurnSession, configured: object = None) -> McpConfig:
    """The merged configuration for a session's notebook and workspace, within the site policy."""
    notebook_dir = session.notebook.parent if session.notebook else Path.cwd()
    return within_site_policy(load_config(notebook_dir, Path(session.workspace), configured))


def within_site_policy(config: McpConfig, env: Mapping[str, str] | None = None) -> McpConfig:
    """Servers the site's MCP allow-list does not name are left out, each with a problem line."""
    try:
        policy = load_site_policy(env)
    except SitePolicyError as error:
        return McpConfig(problems=[*config.problems, f"{error}: no MCP server is started"], disabled=config.disabled)
    for name, server in list(config.servers.items()):
        problem = policy.mcp_problem(name, server.command, server.url)
        if problem is not None:
            del config.servers[name]
            config.problems.append(problem)
    return config


def register_secrets(redactor: Redactor, servers: list[ServerConfig]) -> None:
    """Every ``env`` and ``headers`` value becomes ``[redacted:…]`` in the session file and the panel."""
    for server in servers:
        for name, value in server.secrets().items():
            redactor.add(name, value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token"):
                redactor.add(name, token)


async def open_turn(
    session: TurnSession,
    *,
    configured: object,
    selection: tuple[str, ...] | None,
    note: Callable[[str], None],
    mode: PermissionMode = "yolo",
    ask: Ask | None = None,
    servers: McpRegistry | None = None,
) -> McpTurn:
    """``mode`` and ``ask``: the turn's permission mode and approval prompt, for servers of a project file."""
    config = session_config(session, configured)
    chosen, problems = select(config, selection)
    redactor = session.store.redactor
    register_secrets(redactor, list(config.servers.values()))
    chosen = await consented(chosen, mode=mode, ask=ask, redact=redactor.redact, problem=problems.append)
    return await McpTurn.open(
        chosen, [*config.problems, *problems], log_folder=session.path.parent, redact=redactor.redact, note=note, servers=servers
    )


__all__ = ["McpConfig", "McpRegistry", "McpTurn", "ServerConfig", "open_turn", "register_secrets", "registry", "session_config"]
