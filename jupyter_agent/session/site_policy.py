"""The site-wide policy an administrator sets for every user of a machine or JupyterHub.

One JSON file, ``/etc/jupyter/jupyter_agent.json`` (``$JUPYTER_AGENT_SITE_CONFIG`` names another;
an empty value turns the policy off for tests). Where it is is read once per kernel, from the
environment the kernel was started with (``/proc/self/environ`` on Linux, else the environment when
the extension loads): a cell that changes ``os.environ`` later cannot switch the policy off or
point it at a file of its own; the change is ignored with a note (``SitePolicy.notes``). The file
itself is read at every turn, so an administrator's fix applies at once. Every key is optional::

    {
      "models": {"allowed": ["litellm_proxy/*"], "default": "litellm_proxy/team-default"},
      "gateway": {"api_base": "https://llm.example.org"},
      "data_policy": {"ceiling": "sample"},
      "permissions": {"ceiling": "ask"},
      "max_spend": 2.0,
      "mcp": {"allowed": ["docs", {"name": "github", "url": "https://mcp.example.org/github"}]}
    }

User settings (the cell's options, ``%config AgentMagics``, environment variables, ``.mcp.json``
files) apply within it and never beyond: a model outside ``allowed`` is refused; ``apply`` gives a
turn's settings the gateway in place of any other base URL, the data policy and permission mode
lowered to their ceilings (schema < sample < full; readonly < ask < yolo: the orders are the
privacy gate's and the permission gate's) and ``max_spend`` capped; and an MCP server
not on the list (by name, and by command or URL where the entry gives one) is left out with a
note. A file that exists but cannot be read or parsed is an error for every turn: a broken policy
must not silently allow everything. A dangling symbolic link, a link loop, a folder, a FIFO or a
device at the policy's path, a file that cannot be read, JSON nested too deep, are broken policies,
never absent ones; only a path where nothing exists at all means "no policy".

This is what an in-kernel policy can promise: the agent's own settings (cell options, ``%config``,
``.mcp.json``) stay within it. It cannot stop the user's own code, which can do anything the user
can (patch this module, call a provider directly); what must hold against that (models, budgets,
keys) is enforced by the gateway the policy names, such as a LiteLLM proxy (``docs/teams.md``).
"""

from __future__ import annotations

import errno
import fnmatch
import math
import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol, TypeVar

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.files import parse_json

if TYPE_CHECKING:
    from typing import Self

    from jupyter_agent.runtime.permissions import PermissionMode
    from jupyter_agent.runtime.privacy import DataPolicyName

SITE_CONFIG_ENV = "JUPYTER_AGENT_SITE_CONFIG"
DEFAULT_SITE_CONFIG = Path("/etc/jupyter/jupyter_agent.json")
ALWAYS_ALLOWED_MODELS = ("demo",)  # the offline demo sends nothing anywhere
_KEYS = {"models", "gateway", "data_policy", "permissions", "max_spend", "mcp"}
MAX_POLICY_BYTES = 1024 * 1024  # a policy is a few lines; a bigger file is not one
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


class LimitedSettings(Protocol):
    """What the policy limits of a turn's settings (``TurnSettings``, and ``AgentConfig`` before a cell's options)."""

    @property
    def permissions(self) -> PermissionMode: ...
    @property
    def data_policy(self) -> DataPolicyName: ...
    @property
    def data_ceiling(self) -> DataPolicyName | None: ...
    @property
    def api_base(self) -> str: ...
    @property
    def max_spend(self) -> float | None: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


Limited = TypeVar("Limited", bound=LimitedSettings)


class SitePolicyError(ValueError, JupyterAgentError):
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
    data_ceiling: DataPolicyName | None = None
    permission_ceiling: PermissionMode | None = None
    max_spend: float | None = None
    mcp_allowed: tuple[McpRule, ...] | None = None  # None: any server
    notes: tuple[str, ...] = field(default=(), compare=False)  # what a turn says about it (an ignored change)

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

    def apply(self, settings: Limited) -> Limited:
        """``settings`` within the policy: the data policy and permission mode lowered to their
        ceilings, the gateway as base URL, the spend capped; the same object when no policy is in force."""
        if not self.active:
            return settings
        return settings.model_copy(
            update={
                "data_policy": self.data_policy(settings.data_policy),
                "data_ceiling": self.data_ceiling,
                "permissions": self.permissions(settings.permissions),
                "api_base": self.api_base or settings.api_base,
                "max_spend": self.spend(settings.max_spend),
            }
        )

    def data_policy(self, chosen: DataPolicyName) -> DataPolicyName:
        from jupyter_agent.runtime.privacy import stricter

        return chosen if self.data_ceiling is None else stricter(chosen, self.data_ceiling)

    def permissions(self, chosen: PermissionMode) -> PermissionMode:
        from jupyter_agent.runtime.permissions import stricter_mode

        return chosen if self.permission_ceiling is None else stricter_mode(chosen, self.permission_ceiling)

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


@dataclass(frozen=True)
class PolicyLocation:
    """Where the policy file is: ``path`` (None: ``JUPYTER_AGENT_SITE_CONFIG`` was set empty, no
    policy) and the variable's value it came from (None: unset, the default path)."""

    path: Path | None
    variable: str | None = None

    @classmethod
    def from_environment(cls, env: Mapping[str, str]) -> "PolicyLocation":
        if SITE_CONFIG_ENV not in env:
            return cls(DEFAULT_SITE_CONFIG)
        value = env[SITE_CONFIG_ENV]
        return cls(Path(value.strip()).expanduser().absolute() if value.strip() else None, value)

    def describe(self) -> str:
        return str(self.path) if self.path is not None else f"nowhere ({SITE_CONFIG_ENV} was empty)"

    def change_note(self, env: Mapping[str, str]) -> str:
        """What to say when ``env`` names another policy than the one bound; "" when it does not."""
        now = env.get(SITE_CONFIG_ENV)
        if now == self.variable:
            return ""
        changed = "was unset in this kernel" if now is None else f"was set to {now!r} in this kernel"
        return (
            f"{SITE_CONFIG_ENV} {changed}: ignored. The site policy is read from {self.describe()}, "
            "as the kernel was started; a change needs a new kernel started with it."
        )


class PolicySource:
    """The process's policy location: bound once (``bind``), then the same for every turn."""

    def __init__(self) -> None:
        self.location: PolicyLocation | None = None
        self._lock = threading.Lock()

    def bind(self, env: Mapping[str, str] | None = None) -> PolicyLocation:
        """The location from ``env`` (default: the environment the process started with); the first
        call wins, later ones return what it bound."""
        with self._lock:
            if self.location is None:
                self.location = PolicyLocation.from_environment(startup_environment() if env is None else env)
            return self.location


SITE_POLICY = PolicySource()


def bind_site_policy() -> PolicyLocation:
    """Fixes where the policy is read from for this process (the extension calls it as it loads)."""
    return SITE_POLICY.bind()


def startup_environment() -> dict[str, str]:
    """The environment the process was started with: what ``os.environ`` held before any cell ran."""
    try:
        with open("/proc/self/environ", "rb") as handle:
            data = handle.read()
    except OSError:
        return dict(os.environ)  # no /proc (macOS): the environment now, read as early as possible
    found = {}
    for entry in data.split(b"\0"):
        name, equals, value = entry.partition(b"=")
        if equals:
            found[os.fsdecode(name)] = os.fsdecode(value)
    return found


def site_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The policy file's path: from ``env`` when given, else where the process bound it."""
    return (PolicyLocation.from_environment(env) if env is not None else SITE_POLICY.bind()).path


def load_site_policy(env: Mapping[str, str] | None = None) -> SitePolicy:
    """The policy in force: the file's, or no policy when nothing is at its path. Raises ``SitePolicyError``.

    Without ``env``, the file is the one bound for the process (``PolicySource``), and a change of
    ``JUPYTER_AGENT_SITE_CONFIG`` since is reported in the policy's ``notes``.
    """
    if env is not None:
        return read_site_policy(PolicyLocation.from_environment(env).path)
    policy = read_site_policy(SITE_POLICY.bind().path)
    notes = policy_notes()
    return SitePolicy(**{**vars(policy), "notes": notes}) if notes else policy


def policy_notes() -> tuple[str, ...]:
    """What a turn says about the policy: that a change of ``JUPYTER_AGENT_SITE_CONFIG`` is ignored."""
    note = SITE_POLICY.bind().change_note(os.environ)
    return (note,) if note else ()


def read_site_policy(path: Path | None) -> SitePolicy:
    """The policy in the file at ``path`` (None, or nothing there: no policy). Raises ``SitePolicyError``."""
    if path is None:
        return SitePolicy()
    try:
        os.lstat(path)
    except FileNotFoundError:
        dangling = _dangling_link_above(path)
        if dangling is None:
            return SitePolicy()
        raise _broken(path, f"{dangling} is a symbolic link to nothing") from None
    except OSError as error:
        raise _broken(path, error.strerror or str(error)) from None
    try:
        # O_NONBLOCK: a FIFO at the path must not block the turn; the link, if any, is followed.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise _broken(path, "it is a symbolic link to nothing") from None
    except OSError as error:
        reason = "it is a symbolic link loop" if error.errno == errno.ELOOP else error.strerror or str(error)
        raise _broken(path, reason) from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            kind = _KINDS.get(stat.S_IFMT(status.st_mode), "not a file")
            raise _broken(path, f"it is {kind}, not a regular file")
        if status.st_size > MAX_POLICY_BYTES:
            raise _broken(path, f"it is {status.st_size} bytes, over the {MAX_POLICY_BYTES} a policy may have")
        data = os.read(descriptor, MAX_POLICY_BYTES + 1)
    except OSError as error:
        raise _broken(path, error.strerror or str(error)) from None
    finally:
        os.close(descriptor)
    try:
        parsed = parse_json(data.decode("utf-8"))
    except ValueError as error:  # not UTF-8, not JSON, nested too deep
        raise _broken(path, str(error)) from None
    return parse_site_policy(parsed, str(path))


def _broken(path: Path, reason: str) -> SitePolicyError:
    return SitePolicyError(f"site policy {path} cannot be read: {reason}")


def _dangling_link_above(path: Path) -> Path | None:
    """A component of ``path`` (itself or a folder above it) that is a link to nothing, if any."""
    for candidate in (path, *path.parents):
        if os.path.islink(candidate) and not os.path.exists(candidate):
            return candidate
    return None


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
    from jupyter_agent.runtime.permissions import BY_STRICTNESS
    from jupyter_agent.runtime.privacy import DATA_POLICIES

    data_ceiling = _ceiling(_section(data, "data_policy", problem), DATA_POLICIES, "data_policy", problem)
    permission_ceiling = _ceiling(_section(data, "permissions", problem), BY_STRICTNESS, "permissions", problem)
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


def _ceiling(section: dict, order: tuple[Any, ...], key: str, problem: Any) -> Any:
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
