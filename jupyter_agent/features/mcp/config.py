"""MCP server configuration: ``.mcp.json`` files, the user file and ``AgentMagics.mcp_servers``.

Every source has the shape most MCP clients share::

    {"mcpServers": {"<name>": {"command": "...", "args": [...], "env": {...}, "cwd": "..."}}}   # stdio
    {"mcpServers": {"<name>": {"url": "http://…/mcp", "headers": {...}}}}                    # streamable HTTP

A server named in a source of higher precedence replaces the whole entry of a lower one: the cell
(``--mcp`` picks names) > ``%config AgentMagics.mcp_servers`` > ``.mcp.json`` in the notebook's
folder > ``.mcp.json`` at the workspace root > ``~/.jupyter/agent/mcp.json`` (``$JUPYTER_CONFIG_DIR/agent/``). ``${VAR}`` (and
``${VAR:-default}``) in ``env``, ``args`` and ``headers`` expand from the environment. A source that
cannot be read is one problem line naming the file; its servers are left out, the rest is used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.files import parse_json

CONFIG_FILE = ".mcp.json"
USER_CONFIG = Path("agent") / "mcp.json"  # in Jupyter's config folder: $JUPYTER_CONFIG_DIR, else ~/.jupyter
CONFIGURED = "AgentMagics.mcp_servers"
DEFAULT_START_TIMEOUT = 30.0  # an npx/uvx server may download itself on its first start
DEFAULT_CALL_TIMEOUT = 120.0
# No server may hold a turn longer than this to start or to answer one call (Stop still ends it sooner).
MAX_TIMEOUT = 600.0
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_KNOWN_KEYS = frozenset(
    {"type", "command", "args", "env", "cwd", "url", "headers", "startTimeout", "callTimeout", "disabled", "description"}
)


@dataclass(frozen=True)
class ServerConfig:
    name: str
    source: str  # the file (or CONFIGURED) that defined it
    transport: Literal["stdio", "http"]
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    start_timeout: float = DEFAULT_START_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT

    def fingerprint(self) -> str:
        """Identifies what is started: a running server is reused only while this stays the same."""
        parts = [
            self.transport,
            self.command,
            list(self.args),
            sorted(self.env.items()),
            self.cwd,
            self.url,
            sorted(self.headers.items()),
        ]
        return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()

    def secrets(self) -> dict[str, str]:
        """Values that must never be shown or recorded: every ``env`` and ``headers`` value."""
        found = {f"{self.name}.env.{key}": value for key, value in self.env.items()}
        found.update({f"{self.name}.headers.{key}": value for key, value in self.headers.items()})
        return found

    def describe(self) -> str:
        """What the server is, without its secrets (``env`` and ``headers`` show as names only)."""
        if self.transport == "http":
            where = self.url + (f" (headers: {', '.join(self.headers)})" if self.headers else "")
        else:
            where = " ".join([self.command, *self.args]) + (f" (env: {', '.join(self.env)})" if self.env else "")
        return where


@dataclass
class McpConfig:
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # one line each, naming the source
    disabled: set[str] = field(default_factory=set)  # "disabled": true in the winning source


class ConfigProblem(ValueError, JupyterAgentError):
    pass


def expand(text: str, environ: Mapping[str, str], where: str) -> str:
    """``${VAR}`` and ``${VAR:-default}`` from ``environ``; an unset variable without a default is a problem."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise ConfigProblem(f"{where} uses ${{{name}}}, which is not set")
            return default
        return value

    return _VARIABLE.sub(replace, text)


def parse_servers(data: object, source: str, environ: Mapping[str, str], base: Path) -> McpConfig:
    """The servers of one source; ``base`` is the folder a relative ``cwd`` is resolved against."""
    result = McpConfig()
    if isinstance(data, Mapping) and "mcpServers" in data:
        data = data["mcpServers"]
    if not isinstance(data, Mapping):
        result.problems.append(f'MCP config {source}: expected an object with "mcpServers", got {_kind(data)}')
        return result
    for name, entry in data.items():
        try:
            server = _server(str(name), entry, source, environ, base)
        except ConfigProblem as problem:
            result.problems.append(f"MCP config {source}: server {name!r}: {problem}")
            continue
        if server is None:
            result.disabled.add(str(name))
        else:
            result.servers[str(name)] = server
    return result


def _server(name: str, entry: object, source: str, environ: Mapping[str, str], base: Path) -> ServerConfig | None:
    if not isinstance(entry, Mapping):
        raise ConfigProblem(f"expected an object, got {_kind(entry)}")
    unknown = sorted(set(entry) - _KNOWN_KEYS)
    if unknown:
        raise ConfigProblem(f"unknown key {unknown[0]!r} (known: command, args, env, cwd, url, headers, type)")
    if entry.get("disabled") is True:
        return None
    kind = entry.get("type")
    has_command, has_url = "command" in entry, "url" in entry
    if kind not in (None, "stdio", "http", "streamable-http", "streamableHttp"):
        raise ConfigProblem(f"type {kind!r} is not supported (use stdio, or http for streamable HTTP)")
    if has_command == has_url:
        raise ConfigProblem('needs either "command" (stdio) or "url" (streamable HTTP)')
    timeouts = {
        key: _seconds(entry, key, default)
        for key, default in (("startTimeout", DEFAULT_START_TIMEOUT), ("callTimeout", DEFAULT_CALL_TIMEOUT))
    }
    if has_url:
        url = _string(entry, "url")
        if not url.startswith(("http://", "https://")):
            raise ConfigProblem(f"url must start with http:// or https://, got {url!r}")
        headers = {key: expand(value, environ, f"headers.{key}") for key, value in _strings(entry, "headers").items()}
        return ServerConfig(
            name=name,
            source=source,
            transport="http",
            url=url,
            headers=headers,
            start_timeout=timeouts["startTimeout"],
            call_timeout=timeouts["callTimeout"],
        )
    command = _string(entry, "command")
    if not command.strip():
        raise ConfigProblem("command is empty")
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise ConfigProblem("args must be a list of strings")
    env = {key: expand(value, environ, f"env.{key}") for key, value in _strings(entry, "env").items()}
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigProblem("cwd must be a string")
    if cwd:
        cwd = str((base / os.path.expanduser(cwd)).resolve())
    return ServerConfig(
        name=name,
        source=source,
        transport="stdio",
        command=command,
        args=tuple(expand(arg, environ, "args") for arg in args),
        env=env,
        cwd=cwd or str(base),
        start_timeout=timeouts["startTimeout"],
        call_timeout=timeouts["callTimeout"],
    )


def _string(entry: Mapping[str, object], key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str):
        raise ConfigProblem(f"{key} must be a string, got {_kind(value)}")
    return value


def _strings(entry: Mapping[str, object], key: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(item, str) for item in value.values()):
        raise ConfigProblem(f"{key} must be an object of strings")
    return {str(name): item for name, item in value.items()}


def _seconds(entry: Mapping[str, object], key: str, default: float) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
        shown = json.dumps(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else _kind(value)
        raise ConfigProblem(f"{key} must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, got {shown}")
    return float(value)


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null"}.get(type(value), type(value).__name__)


def read_file(path: Path, environ: Mapping[str, str], base: Path | None = None) -> McpConfig | None:
    """A config file's servers; ``None`` when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        return McpConfig(problems=[f"MCP config {path}: cannot be read ({error.__class__.__name__}: {error})"])
    if not text.strip():
        return McpConfig()
    try:
        data = parse_json(text)
    except json.JSONDecodeError as error:
        return McpConfig(problems=[f"MCP config {path}: invalid JSON at line {error.lineno} column {error.colno}: {error.msg}"])
    except ValueError as error:
        return McpConfig(problems=[f"MCP config {path}: invalid JSON: {error}"])
    return parse_servers(data, str(path), environ, base or path.parent)


def user_config(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("JUPYTER_CONFIG_DIR") or "~/.jupyter").expanduser() / USER_CONFIG


def config_sources(notebook_dir: Path, workspace: Path, user_file: Path) -> list[Path]:
    """The files in rising precedence: the user file, the workspace root's, the notebook folder's."""
    files = [user_file, workspace / CONFIG_FILE, notebook_dir / CONFIG_FILE]
    unique: list[Path] = []
    for path in files:
        if path not in unique:
            unique.append(path)
    return unique


def load_config(
    notebook_dir: Path,
    workspace: Path,
    configured: object = None,
    *,
    environ: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> McpConfig:
    """Every source merged by precedence (see the module docstring)."""
    environ = os.environ if environ is None else environ
    user_file = user_file or user_config(environ)
    merged = McpConfig()
    layers = [
        read_file(path, environ, base=notebook_dir if path == user_file else None)
        for path in config_sources(notebook_dir, workspace, user_file)
    ]
    if configured:
        layers.append(parse_servers(configured, CONFIGURED, environ, notebook_dir))
    for layer in layers:
        if layer is None:
            continue
        merged.problems += layer.problems
        for name in layer.disabled:
            merged.servers.pop(name, None)
        merged.disabled = (merged.disabled | layer.disabled) - set(layer.servers)
        merged.servers.update(layer.servers)
    return merged


def select(config: McpConfig, names: tuple[str, ...] | None) -> tuple[list[ServerConfig], list[str]]:
    """The servers a turn uses: all (``None``), none (``()``) or the named ones; unknown names are problems."""
    if names is None:
        return list(config.servers.values()), []
    unknown = [name for name in names if name not in config.servers]
    problems = [
        f"--mcp names an unknown MCP server {name!r} (configured: {', '.join(config.servers) or 'none'})" for name in unknown
    ]
    return [config.servers[name] for name in names if name in config.servers], problems
