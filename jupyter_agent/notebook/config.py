"""Effective settings: ``AgentMagics`` traitlets, then environment variables, then defaults.

A snapshot is taken per turn, so ``%config AgentMagics.model = ...`` applies to the next cell.
Secrets never appear in what ``%agent config`` prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, cast

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.runtime.permissions import PermissionMode
    from jupyter_agent.tools.data_policy import DataPolicyName

PERMISSION_MODES = ("ask", "readonly", "yolo")
PERMISSIONS_ENV = "JUPYTER_AGENT_PERMISSIONS"
DATA_POLICIES = ("sample", "schema", "full")
KEY_HINTS = ("_KEY", "_TOKEN", "_SECRET", "PASSWORD")


@dataclass(frozen=True)
class AgentConfig:
    model: str = ""
    api_base: str = ""
    api_key: str = ""
    permissions: str = ""  # empty: JUPYTER_AGENT_PERMISSIONS, else the frontend's default
    session: str = "main"
    max_steps: int | None = None
    max_spend: float | None = None
    tools: tuple[str, ...] = ()  # empty: every tool
    workspace: str = ""  # empty: the notebook's git root, else its folder
    session_dir: str = ""  # empty: <notebook>.agent/ beside the notebook
    data_policy: DataPolicyName = "sample"
    sample_rows: int = 5
    bash_timeout: float = 120.0
    stream_timeout: float | None = None  # None: JUPYTER_AGENT_STREAM_TIMEOUT, else 120 s
    recent_cells: int = 6
    wait: bool = False
    memory: bool = False
    delegate: bool = False
    mcp_servers: Any = None  # {"name": {...}} or {"mcpServers": {...}}; see features/mcp/config.py
    mcp_subagents: bool = False
    undo_snapshot_mb: float = 100.0
    replay: str = "off"  # "auto": replay a cell whose prompt matches a recorded turn

    @classmethod
    def from_magics(cls, magics: AgentMagics, env: Mapping[str, str] | None = None) -> "AgentConfig":
        env = os.environ if env is None else env
        values = {field.name: getattr(magics, field.name) for field in fields(cls) if hasattr(magics, field.name)}
        values["tools"] = tuple(values.get("tools") or ())
        values["mcp_servers"] = dict(values.get("mcp_servers") or {})
        values["permissions"] = values.get("permissions") or ""
        # Environment fills what configuration leaves empty (JUPYTER_AGENT_MODEL is read by
        # model resolution, after the session's own choice).
        values["api_base"] = values.get("api_base") or env.get("JUPYTER_AGENT_API_BASE", "")
        values["api_key"] = values.get("api_key") or env.get("JUPYTER_AGENT_API_KEY", "")
        return cls(**values)

    def describe(self) -> str:
        lines = []
        for field in fields(self):
            value = getattr(self, field.name)
            if field.name == "api_key":
                value = "(set)" if value else "(not set)"
            elif field.name == "mcp_servers":
                value = sorted((value or {}).get("mcpServers", value or {}))  # names: env and headers hold secrets
            if field.name == "permissions" and not value:
                lines.append(
                    f"  AgentMagics.permissions = None (not set: {PERMISSIONS_ENV}, else ask; headless runs deny mutating tools)"
                )
                continue
            lines.append(
                f"  AgentMagics.{field.name} = {value!r}" if field.name != "api_key" else f"  AgentMagics.api_key {value}"
            )
        return "\n".join(lines)


def bad_permissions_env(value: str) -> str:
    return f"{PERMISSIONS_ENV}={value!r} is not a permission mode: use {PERMISSIONS_ENV}=yolo, readonly or ask (or unset it)"


def choose_permissions(option: str | None, config: AgentConfig, env: Mapping[str, str] | None = None) -> PermissionMode | None:
    """The turn's permission mode: the cell's ``-p``, then ``%config AgentMagics.permissions``, then
    ``JUPYTER_AGENT_PERMISSIONS``; ``None`` when nothing chose one (the frontend decides).

    Raises ``ValueError`` (with ``bad_permissions_env``) when the variable is consulted and invalid.
    """
    # The cell option (magic_arguments choices) and the traitlet (an Enum) are validated already.
    if option:
        return cast("PermissionMode", option)
    if config.permissions:
        return cast("PermissionMode", config.permissions)
    env = os.environ if env is None else env
    value = env.get(PERMISSIONS_ENV, "").strip()
    if not value:
        return None
    if value not in PERMISSION_MODES:
        raise ValueError(bad_permissions_env(value))
    return cast("PermissionMode", value)


def secret_env_names(env: Mapping[str, str] | None = None) -> list[str]:
    """Names (never values) of environment variables that look like provider credentials."""
    env = os.environ if env is None else env
    return sorted(name for name, value in env.items() if value and any(hint in name.upper() for hint in KEY_HINTS))


def default_workspace(notebook_dir: Path) -> Path:
    """The git root above the notebook, else the notebook's folder: where a project's files live."""
    for folder in (notebook_dir, *notebook_dir.parents):
        if (folder / ".git").exists():
            return folder
    return notebook_dir
