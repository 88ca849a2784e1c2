"""The site-wide policy an administrator sets for every user of a machine or JupyterHub.

One JSON file, ``/etc/jupyter/jupyter_agent.json`` (``$JUPYTER_AGENT_SITE_CONFIG`` names another;
an empty value turns the policy off for tests). Every key is optional::

    {
      "models": {"allowed": ["litellm_proxy/*"], "default": "litellm_proxy/team-default"},
      "gateway": {"api_base": "https://llm.example.org"},
      "data_policy": {"ceiling": "sample"},
      "permissions": {"ceiling": "ask"},
      "max_spend": 2.0,
      "mcp": {"allowed": ["docs", {"name": "github", "url": "https://mcp.example.org/github"}]}
    }

User settings (the cell's options, ``%config AgentMagics``, environment variables, ``.mcp.json``
files) apply within it and never beyond: a model outside ``allowed`` is refused, the gateway
replaces any other base URL, the data policy and permission mode are lowered to their ceilings
(schema < sample < full; readonly < ask < yolo), ``max_spend`` caps every turn, and an MCP server
not on the list (by name, and by command or URL where the entry gives one) is left out with a
note. A file that exists but cannot be read or parsed is an error for every turn: a broken policy
must not silently allow everything.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

SITE_CONFIG_ENV = "JUPYTER_AGENT_SITE_CONFIG"
DEFAULT_SITE_CONFIG = Path("/etc/jupyter/jupyter_agent.json")
DATA_ORDER = ("schema", "sample", "full")
PERMISSION_ORDER = ("readonly", "ask", "yolo")
ALWAYS_ALLOWED_MODELS = ("demo",)  # the offline demo sends nothing anywhere
_KEYS = {"models", "gateway", "data_policy", "permissions", "max_spend", "mcp"}


class SitePolicyError(ValueError):
    """The site policy file is there but unusable; its message names the file and the problem."""


@dataclass(frozen=True)
class McpRule:
    name: str
    command: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class SitePolicy:
    source: str = ""  # the file; empty: no policy
    allowed_models: tuple[str, ...] = ()  # fnmatch patterns; empty: any model
    default_model: str = ""
    api_base: str = ""
    data_ceiling: str | None = None
    permission_ceiling: str | None = None
    max_spend: float | None = None
    mcp_allowed: tuple[McpRule, ...] | None = None  # None: any server

    @property
    def active(self) -> bool:
        return bool(self.source)

    def model_problem(self, name: str) -> str | None:
        """Why the site does not allow ``name``; ``None`` when it does."""
        if not self.allowed_models or name in ALWAYS_ALLOWED_MODELS:
            return None
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.allowed_models):
            return None
        return f"model {name!r} is not allowed by the site policy {self.source} (allowed: {', '.join(self.allowed_models)})"

    def data_policy(self, chosen: str) -> str:
        return _lowest(chosen, self.data_ceiling, DATA_ORDER)

    def permissions(self, chosen: str) -> str:
        return _lowest(chosen, self.permission_ceiling, PERMISSION_ORDER)

    def spend(self, chosen: float | None) -> float | None:
        if self.max_spend is None:
            return chosen
        return self.max_spend if chosen is None else min(chosen, self.max_spend)

    def mcp_problem(self, name: str, command: str, url: str) -> str | None:
        """Why the site leaves out the MCP server ``name`` (started by ``command`` or at ``url``)."""
        if self.mcp_allowed is None:
            return None
        for rule in self.mcp_allowed:
            if rule.name == name and rule.command in (None, command) and rule.url in (None, url):
                return None
        names = ", ".join(rule.name for rule in self.mcp_allowed) or "none"
        return f"MCP server {name!r} is not allowed by the site policy {self.source} (allowed: {names}); it is left out"


def _lowest(chosen: str, ceiling: str | None, order: tuple[str, ...]) -> str:
    if ceiling is None or chosen not in order:
        return chosen
    return order[min(order.index(chosen), order.index(ceiling))]


def site_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    env = os.environ if env is None else env
    if SITE_CONFIG_ENV in env:
        value = env[SITE_CONFIG_ENV].strip()
        return Path(value).expanduser() if value else None
    return DEFAULT_SITE_CONFIG


def load_site_policy(env: Mapping[str, str] | None = None) -> SitePolicy:
    """The policy in force: the file's, or no policy when there is no file. Raises ``SitePolicyError``."""
    path = site_config_path(env)
    if path is None or not path.exists():
        return SitePolicy()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SitePolicyError(f"site policy {path} cannot be read: {error}") from None
    return parse_site_policy(data, str(path))


def parse_site_policy(data: Any, source: str) -> SitePolicy:
    def problem(text: str) -> SitePolicyError:
        return SitePolicyError(f"site policy {source}: {text}")

    if not isinstance(data, dict):
        raise problem("expected a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise problem(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    models = _section(data, "models", problem)
    allowed = models.get("allowed", [])
    if not isinstance(allowed, list) or not all(isinstance(item, str) and item for item in allowed):
        raise problem("models.allowed must be a list of model names or patterns (litellm_proxy/*)")
    default = models.get("default", "")
    if not isinstance(default, str):
        raise problem("models.default must be a model name")
    api_base = _section(data, "gateway", problem).get("api_base", "")
    if not isinstance(api_base, str) or (api_base and not api_base.startswith(("http://", "https://"))):
        raise problem(f"gateway.api_base must be an http:// or https:// URL, got {api_base!r}")
    data_ceiling = _ceiling(_section(data, "data_policy", problem), DATA_ORDER, "data_policy", problem)
    permission_ceiling = _ceiling(_section(data, "permissions", problem), PERMISSION_ORDER, "permissions", problem)
    max_spend = data.get("max_spend")
    if max_spend is not None and (
        isinstance(max_spend, bool) or not isinstance(max_spend, (int, float)) or not math.isfinite(max_spend) or max_spend <= 0
    ):
        raise problem(f"max_spend must be a positive number of USD, got {max_spend!r}")
    policy = SitePolicy(
        source=source,
        allowed_models=tuple(allowed),
        default_model=default,
        api_base=api_base,
        data_ceiling=data_ceiling,
        permission_ceiling=permission_ceiling,
        max_spend=float(max_spend) if max_spend is not None else None,
        mcp_allowed=_mcp_rules(_section(data, "mcp", problem), problem),
    )
    if default and policy.model_problem(default):
        raise problem(f"models.default {default!r} is not in models.allowed")
    return policy


def _section(data: dict, key: str, problem: Any) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise problem(f"{key} must be an object")
    return value


def _ceiling(section: dict, order: tuple[str, ...], key: str, problem: Any) -> str | None:
    ceiling = section.get("ceiling")
    if ceiling is not None and ceiling not in order:
        raise problem(f"{key}.ceiling must be one of {', '.join(order)}, got {ceiling!r}")
    return ceiling


def _mcp_rules(section: dict, problem: Any) -> tuple[McpRule, ...] | None:
    if "allowed" not in section:
        return None
    entries = section["allowed"]
    if not isinstance(entries, list):
        raise problem("mcp.allowed must be a list of server names or {name, command | url} objects")
    rules = []
    for entry in entries:
        if isinstance(entry, str) and entry:
            rules.append(McpRule(entry))
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str) and set(entry) <= {"name", "command", "url"}:
            rules.append(McpRule(entry["name"], entry.get("command"), entry.get("url")))
        else:
            raise problem(f"mcp.allowed entry {entry!r} must be a name or an object with name and command or url")
    return tuple(rules)
