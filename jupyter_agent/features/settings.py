"""``TurnSettings``: what one turn was asked to do, frozen when its cell runs, and where each setting comes from.

Each field is declared here once, with its type, default and help. Its ``Setting`` says how the
user sets it besides in code: ``%config AgentMagics.<name>`` (the traitlet, built from the field:
``notebook/config.py``), an environment variable read when the traitlet is not set, and the
``%%agent`` options (and ``%agent serve``'s) that set it for one turn. A turn's settings are, for
each field, the cell's option, else ``%config``, else the variable, else the default; then the
site policy lowers them to its ceilings (``SitePolicy.apply``). The runner and every feature read
the turn's settings from here and from nothing else.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Literal, Mapping, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from jupyter_agent.model.idle_timeout import IDLE_TIMEOUT_ENV
from jupyter_agent.runtime.permissions import PERMISSION_MODES, PermissionMode
from jupyter_agent.runtime.privacy import DataPolicyName

PERMISSIONS_ENV = "JUPYTER_AGENT_PERMISSIONS"
# Ten minutes: long enough for real work on a sample, short enough that a hung call frees the turn.
PYTHON_TIMEOUT = 600.0
# Half a minute: a cell that took longer costs enough to be worth one question before it runs again.
ASK_SLOW_CELLS = 30.0


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: object = _Default()  # ``Setting.unset``: the traitlet's default is the field's


@dataclass(frozen=True)
class Option:
    """One command-line option of a setting: its flags and argparse keywords (``dest`` is the
    field's name unless given); ``serve``: its help in ``%agent serve``, which then takes it too."""

    flags: tuple[str, ...]
    keywords: Mapping[str, object] = field(default_factory=dict)
    serve: str | None = None


def option(*flags: str, serve: str | None = None, **keywords: object) -> Option:
    return Option(flags, keywords, serve)


def switch(on: str, on_help: str, off: str, off_help: str) -> tuple[Option, Option]:
    """``--on`` / ``--off``: True, False, or None (neither given: the configured value holds)."""
    return (
        option(on, action="store_const", const=True, default=None, help=on_help),
        option(off, action="store_const", const=False, help=off_help),
    )


@dataclass(frozen=True)
class Setting:
    """How a field is set besides in code.

    ``traitlet``: ``%config AgentMagics.<name>`` sets it. ``unset``: the traitlet's value that
    means "not set" when it is not the field's default (then ``env``, then the default, decide).
    ``env``: the environment variable read when the traitlet is not set; ``invalid_env`` words the
    error for a value that is not one of the field's choices. ``choices``: the traitlet's, when
    narrower than the field's type. ``options``: the ``%%agent`` options. ``secret``: ``%agent
    config`` says only whether it is set; ``shown``: what it shows instead of the value;
    ``unset_note``: what it adds when the traitlet is not set.
    ``options_after``: the setting whose options ``--help`` lists before these (the declarations'
    order otherwise).
    """

    traitlet: bool = True
    unset: object = DEFAULT
    env: str | None = None
    invalid_env: Callable[[str], str] | None = None
    choices: tuple[str, ...] | None = None
    options: tuple[Option, ...] = ()
    options_after: str | None = None  # --help lists the options after those of this setting
    secret: bool = False
    shown: Callable[[Any], object] | None = None
    unset_note: str = ""


def bad_permissions_env(value: str) -> str:
    return f"{PERMISSIONS_ENV}={value!r} is not a permission mode: use {PERMISSIONS_ENV}=yolo, readonly or ask (or unset it)"


def _server_names(servers: Any) -> list[str]:
    # Names only: a server's env and headers hold secrets.
    return sorted((servers or {}).get("mcpServers", servers or {}))


class TurnSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # The cell's options come first, in the order ``%%agent --help`` lists them.
    append: Annotated[
        bool,
        Setting(
            traitlet=False,
            options=(
                option(
                    "--append", action="store_true", help="add a turn after the newest one (a cell run again redoes its turn)"
                ),
            ),
        ),
    ] = Field(default=False, description="One more turn after the newest, even for a re-run cell (notebook/agent_cells.py).")
    permissions: Annotated[
        PermissionMode,
        Setting(
            unset=None,
            env=PERMISSIONS_ENV,
            invalid_env=bad_permissions_env,
            options=(
                option(
                    "-p", "--permissions", choices=PERMISSION_MODES, help="ask | readonly | yolo", serve="ask | readonly | yolo"
                ),
            ),
            unset_note="headless runs deny mutating tools",
        ),
    ] = Field(
        default="ask",
        description="ask: approve each mutating tool call; readonly: deny them; yolo: allow all. "
        f"None: {PERMISSIONS_ENV}, else ask (a headless run, which cannot ask, "
        "denies). A cell's -p wins over both.",
    )
    max_steps: Annotated[
        int | None, Setting(options=(option("--max-steps", type=int, metavar="N", help="at most N steps (model round trips)"),))
    ] = Field(default=None, description="Steps per turn (model round trips); None: no limit.")
    max_spend: Annotated[
        float | None,
        Setting(options=(option("--max-spend", type=float, metavar="USD", help="stop before spending more than USD"),)),
    ] = Field(default=None, description="USD ceiling per turn; None: no limit.")
    tools: Annotated[
        tuple[str, ...],
        Setting(
            options=(
                option(
                    "--tools",
                    metavar="LIST",
                    help="comma-separated tools, e.g. python,variables (or 'none')",
                    serve="comma-separated tools (default: the kernel and notebook tools)",
                ),
            )
        ),
    ] = Field(default=(), description="Tools the agent may use; empty: all.")  # ("none",): no tools at all
    memory: Annotated[
        bool,
        Setting(
            options=switch(
                "--memory", "use and update the notebook's memory in this turn", "--no-memory", "no memory in this turn"
            )
        ),
    ] = Field(
        default=False,
        description="Keep durable facts about this notebook across sessions (<notebook>.agent/memory/): "
        "the index goes into every request and each turn ends with an extraction request.",
    )  # opt-in: features/memory
    delegate: Annotated[
        bool,
        Setting(
            options=switch(
                "--delegate", "let the agent hand sub-tasks to sub-agents", "--no-delegate", "no sub-agents in this turn"
            )
        ),
    ] = Field(
        default=False,
        description="Give the agent the delegate tool: sub-agents with fresh contexts and read-only tools "
        "run sub-tasks within the turn's budget.",
    )  # opt-in: features/delegation
    mcp: Annotated[
        tuple[str, ...] | None,
        Setting(
            traitlet=False,
            options=(
                option("--mcp", metavar="NAMES", help="only these MCP servers (comma-separated) in this turn"),
                option("--no-mcp", action="store_true", dest="no_mcp", help="no MCP servers in this turn"),
            ),
        ),
    ] = Field(default=None, description="MCP servers of the turn: None every configured one, () none.")
    replay: Annotated[
        Literal["off", "on", "auto", "strict"],
        Setting(
            choices=("off", "auto", "strict"),
            options=(
                option(
                    "--replay",
                    nargs="?",
                    const="on",
                    choices=("on", "strict"),
                    help="play the recorded turn of this prompt again without the model (=strict: fail if there is none)",
                ),
            ),
        ),
    ] = Field(
        default="off",
        description="auto: a cell whose prompt matches a recorded turn replays it without the model (else runs live); "
        "strict: replays or fails. A cell's --replay wins.",
    )  # features/kernel_state
    api_base: Annotated[str, Setting(env="JUPYTER_AGENT_API_BASE")] = Field(
        default="", description="Base URL of an OpenAI-compatible server (else JUPYTER_AGENT_API_BASE)."
    )
    api_key: Annotated[str, Setting(env="JUPYTER_AGENT_API_KEY", secret=True)] = Field(
        default="", description="API key for the model (else JUPYTER_AGENT_API_KEY or the provider's variable)."
    )
    data_policy: Annotated[DataPolicyName, Setting()] = Field(
        default="sample",
        description="sample: statistics and sample rows; schema: structure only, never values; full: as much as the output caps allow.",
    )
    sample_rows: Annotated[int, Setting()] = Field(default=5, description="Sample rows inspect may show (data_policy 'sample').")
    data_ceiling: DataPolicyName | None = Field(default=None, description="The site policy's data ceiling, when one is in force.")
    bash_timeout: Annotated[float, Setting()] = Field(default=120.0, description="Seconds before a bash command is killed.")
    python_timeout: Annotated[float | None, Setting()] = Field(
        default=PYTHON_TIMEOUT,
        description="Seconds an agent python call (and a cell notebook_run starts) may run before it is interrupted as ■ would; "
        "the model may ask for less per call, never more. None: no limit.",
    )
    ask_slow_cells: Annotated[float | None, Setting()] = Field(
        default=ASK_SLOW_CELLS,
        description="notebook_run asks before it re-runs a cell whose last run took longer than this (seconds), even when "
        "notebook_run is allowed for the session. None: never asks for that.",
    )
    stream_timeout: Annotated[
        float | None,
        Setting(
            env=IDLE_TIMEOUT_ENV,
            invalid_env=lambda value: f"{IDLE_TIMEOUT_ENV} must be a positive number of seconds, not {value!r}",
        ),
    ] = Field(
        default=None,
        gt=0,
        description="Seconds without data from the provider before a response fails; None: JUPYTER_AGENT_STREAM_TIMEOUT, else 120.",
    )
    recent_cells: Annotated[int, Setting()] = Field(
        default=6, description="Cells before and after the agent cell in the notebook outline the agent gets; 0: no outline."
    )
    mcp_servers: Annotated[dict[str, object], Setting(shown=_server_names)] = Field(
        default_factory=dict,
        description="MCP servers, as in .mcp.json: {'name': {'command': ..., 'args': [...], 'env': {...}}} "
        "or {'name': {'url': 'http://…/mcp', 'headers': {...}}}; these win over the files.",
    )
    mcp_subagents: Annotated[bool, Setting()] = Field(
        default=False, description="Give delegate's sub-agents the read-only MCP tools too."
    )
    undo_snapshot_mb: Annotated[float, Setting()] = Field(
        default=100.0,
        description="Values the agent's code names are copied before it runs, for %agent undo, when smaller than this (MB).",
    )


def declared(model: type[BaseModel]) -> list[tuple[str, FieldInfo, Setting]]:
    """The fields of ``model`` the user sets, in declaration order, each with its ``Setting``."""
    return list(_declared(model))


@functools.cache  # a model's fields are fixed once it is defined; every cell reads them
def _declared(model: type[BaseModel]) -> tuple[tuple[str, FieldInfo, Setting], ...]:
    found = []
    for name, info in model.model_fields.items():
        setting = next((item for item in info.metadata if isinstance(item, Setting)), None)
        if setting is not None:
            found.append((name, info, setting))
    return tuple(found)


def default_of(info: FieldInfo) -> object:
    return info.get_default(call_default_factory=True)


def choices_of(info: FieldInfo, setting: Setting) -> tuple[object, ...] | None:
    """The values a setting takes, when its type is a choice (``Literal``), else None."""
    if setting.choices is not None:
        return setting.choices
    annotation = info.annotation
    for part in get_args(annotation) if get_origin(annotation) is not Literal else (annotation,):
        if get_origin(part) is Literal:
            return get_args(part)
    return None


def from_environment(name: str, info: FieldInfo, setting: Setting, env: Mapping[str, str]) -> tuple[object, str | None]:
    """The value ``setting.env`` gives (``DEFAULT`` when unset or empty) and the problem with it, if any."""
    if setting.env is None:
        return DEFAULT, None
    value = env.get(setting.env, "")
    choices = choices_of(info, setting)
    if choices is not None:
        value = value.strip()  # a mode is a word: spaces around it are no part of it
    if not value:
        return DEFAULT, None
    if choices is not None and value not in choices:
        problem = (
            setting.invalid_env(value) if setting.invalid_env is not None else f"{setting.env}={value!r} is not one of {choices}"
        )
        return DEFAULT, problem
    if choices is None and info.annotation is not str:
        # A variable is text: a number (or a bound) is checked here, so that a bad one is said
        # when a turn falls back on it instead of failing the settings of every turn.
        try:
            return TypeAdapter(Annotated[(info.annotation, *info.metadata)]).validate_strings(value.strip()), None
        except ValidationError:
            problem = setting.invalid_env(value) if setting.invalid_env is not None else f"{setting.env}={value!r} is not valid"
            return DEFAULT, problem
    return value, None


__all__ = [
    "ASK_SLOW_CELLS",
    "DEFAULT",
    "PERMISSIONS_ENV",
    "PYTHON_TIMEOUT",
    "Option",
    "Setting",
    "TurnSettings",
    "bad_permissions_env",
    "choices_of",
    "declared",
    "default_of",
    "from_environment",
    "option",
    "switch",
]
