"""The settings as ``%config AgentMagics`` and the environment give them, and the traitlets and
options built from their declarations.

Every setting is declared once: a turn's in ``features/settings.py:TurnSettings``, the kernel's
(which model and session new turns use, where files go, what runs in the background) here in
``KernelSettings``. ``AgentMagics``'s traitlets and the ``%%agent`` options (``cell_options``)
are built from those declarations, through ``settings.json`` (``table``; a test fails while it is
stale), so that ``%load_ext`` imports no pydantic. ``AgentConfig`` is a snapshot taken per
cell, so ``%config AgentMagics.model = ...`` applies to the next cell; ``AgentConfig.turn`` puts a
cell's options over it. Secrets never appear in what ``%agent config`` prints.
"""

from __future__ import annotations

import argparse
import functools
import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Callable, Literal, Mapping, TypedDict, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from pydantic.fields import FieldInfo

from jupyter_agent.features.settings import (
    DEFAULT,
    Option,
    Setting,
    TurnSettings,
    choices_of,
    declared,
    default_of,
    from_environment,
    option,
    switch,
)
from jupyter_agent.model.secrets import remember_secret
from jupyter_agent.notebook.failed_turn import RAISE_ON_ERROR_HELP, RaiseOnError

KEY_HINTS = ("_KEY", "_TOKEN", "_SECRET", "PASSWORD")


class KernelSettings(BaseModel):
    """What every turn of the kernel shares: its defaults for model and session, where files go."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Annotated[
        str,
        Setting(
            env="JUPYTER_AGENT_MODEL", options=(option("-m", "--model", help="model for this turn (litellm name, or 'demo')"),)
        ),
    ] = Field(
        default="",
        description="Model for new turns (litellm name, e.g. 'openai/gpt-4.1-mini', or 'demo'). "
        "Empty: JUPYTER_AGENT_MODEL, then a provider key, then local Ollama, then the offline demo.",
    )
    session: Annotated[
        str,
        Setting(
            options=(
                option("-s", "--session", metavar="NAME", help="session to continue (default: the current one, 'main')"),
                option("--new", action="store_true", dest="new", help="start a fresh session"),
                option("--branch", metavar="NAME", dest="branch", help="fork the session into NAME and continue there"),
            )
        ),
    ] = Field(default="main", description="Session name when a cell gives none.")
    workspace: Annotated[str, Setting()] = Field(
        default="", description="Folder the file tools are confined to; empty: the notebook's git root, else its folder."
    )
    session_dir: Annotated[str, Setting()] = Field(
        default="",
        description="Folder of this kernel's session files (<name>.jsonl); empty: <notebook>.agent/ beside "
        "the notebook, else ipython.agent/ in the working folder.",
    )
    wait: Annotated[
        bool,
        Setting(
            options=switch("--wait", "block the cell until the turn ends", "--no-wait", "return at once"), options_after="tools"
        ),
    ] = Field(default=False, description="Block each %%agent cell until its turn ends (headless runs always do).")
    preload: Annotated[bool, Setting()] = Field(
        default=True, description="Import litellm, then the modules of a turn, in a background thread at %load_ext."
    )
    completion: Annotated[bool, Setting()] = Field(
        default=True, description="Inline completions as you type in JupyterLab (Tab accepts); headless never."
    )
    completion_model: Annotated[str, Setting()] = Field(
        default="", description="Model for inline completions (a fast one); empty: the turn's model."
    )
    raise_on_error: Annotated[RaiseOnError, Setting()] = Field(default="auto", description=RAISE_ON_ERROR_HELP)


SETTINGS = (KernelSettings, TurnSettings)  # every declared setting: the kernel's, then a turn's


def settings_declared() -> list[tuple[str, FieldInfo, Setting]]:
    return [entry for model in SETTINGS for entry in declared(model)]


class AgentConfig(TurnSettings, KernelSettings):
    """The settings before a cell's options and the site policy: ``%config``, else the environment, else the defaults."""

    _unset: frozenset[str] = PrivateAttr(default=frozenset())  # traitlets not set: what %agent config says of them
    _problems: dict[str, str] = PrivateAttr(default_factory=dict)  # invalid variables, raised when a turn needs them
    _from_env: frozenset[str] = PrivateAttr(default=frozenset())  # settings their environment variable gave

    @classmethod
    def from_magics(cls, magics: object, env: Mapping[str, str] | None = None) -> AgentConfig:
        """``magics``: what holds the traitlets (``AgentMagics``), read by name."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        unset, problems, from_env = set(), {}, set()
        unset_values = _unset_values()
        for name, info, setting in settings_declared():
            if not setting.traitlet or not hasattr(magics, name):
                continue
            value = getattr(magics, name)
            if value == unset_values[name]:
                unset.add(name)
                value, problem = from_environment(name, info, setting, env)
                if problem is not None:
                    problems[name] = problem
                if value is DEFAULT:
                    continue
                from_env.add(name)
            values[name] = value
        config = cls.model_validate(values)
        config._unset, config._problems, config._from_env = frozenset(unset), problems, frozenset(from_env)
        # The key is redacted wherever it shows, whichever model runs: a saved output, the outline's
        # `%config AgentMagics.api_key = …` line of the kernel's history.
        remember_secret("api_key", config.api_key)
        return config

    def set_by(self, name: str) -> Literal["configuration", "environment"]:
        """Who gave setting ``name`` its value: ``%config`` (or its default), or its environment variable."""
        return "environment" if name in self._from_env else "configuration"

    def turn(self, given: Mapping[str, object] | None = None) -> TurnSettings:
        """A turn's settings: ``given`` (a cell's options; None: not given) over these.

        Raises ``ValueError`` for an invalid environment variable the turn falls back on.
        """
        values = {name: getattr(self, name) for name in TurnSettings.model_fields}
        for name, value in (given or {}).items():
            if value is not None:
                values[name] = value
        for name, problem in self._problems.items():
            if given is None or given.get(name) is None:
                raise ValueError(problem)
        return TurnSettings(**values)

    def describe(self) -> str:
        lines = []
        for name, info, setting in settings_declared():
            if not setting.traitlet:
                continue
            value = getattr(self, name)
            if setting.secret:
                lines.append(f"  AgentMagics.{name} {'(set)' if value else '(not set)'}")
                continue
            if name in self._unset and setting.unset is not DEFAULT:
                note = f"; {setting.unset_note}" if setting.unset_note else ""
                lines.append(f"  AgentMagics.{name} = {setting.unset!r} (not set: {setting.env}, else {default_of(info)}{note})")
                continue
            lines.append(f"  AgentMagics.{name} = {setting.shown(value) if setting.shown else value!r}")
        return "\n".join(lines)


@functools.cache  # what a traitlet holds while unset, compared with every cell's settings
def _unset_values() -> dict[str, object]:
    return {name: _unset_value(info, setting) for name, info, setting in settings_declared()}


def _unset_value(info: FieldInfo, setting: Setting) -> object:
    default = default_of(info) if setting.unset is DEFAULT else setting.unset
    return list(default) if isinstance(default, tuple) else default  # a List traitlet holds a list


TraitKind = Literal["Enum", "Bool", "Int", "Float", "Unicode", "List", "Dict"]
_TRAIT_KINDS: dict[object, TraitKind] = {bool: "Bool", int: "Int", float: "Float", str: "Unicode"}
_OPTION_TYPES: dict[object, str] = {int: "int", float: "float"}  # the option types argparse is given


class TraitEntry(TypedDict):
    """One setting's traitlet in ``settings.json``."""

    name: str
    kind: TraitKind
    default: object  # the traitlet's default, as JSON (a tuple becomes a list)
    allow_none: bool
    values: list[object] | None  # an Enum's values
    help: str
    env: str | None  # the environment variable read when %config leaves the setting unset


class OptionEntry(TypedDict):
    """One ``%%agent`` option in ``settings.json``: argparse's flags and keywords, as JSON."""

    flags: list[str]
    keywords: dict[str, object]


class SettingsTable(TypedDict):
    """``settings.json``."""

    traits: list[TraitEntry]
    cell_options: list[OptionEntry]


def table() -> SettingsTable:
    """What ``AgentMagics`` is built from at ``%load_ext``, as JSON (``settings.json``): each
    setting's traitlet and the ``%%agent`` options, made from the declarations here so that loading
    the extension needs no pydantic. ``python -m jupyter_agent.notebook.config`` writes it."""
    traits: list[TraitEntry] = []
    for name, info, setting in settings_declared():
        if not setting.traitlet:
            continue
        default = default_of(info) if setting.unset is DEFAULT else setting.unset
        annotation, optional = _without_none(info.annotation)
        choices = choices_of(info, setting)
        kind: TraitKind
        if choices is not None:
            kind = "Enum"
        elif annotation in (bool, int, float, str):
            kind = _TRAIT_KINDS[annotation]
        elif get_origin(annotation) in (tuple, dict):
            kind = "List" if get_origin(annotation) is tuple else "Dict"
        else:
            raise TypeError(f"setting {name!r} has a type no traitlet is built for: {info.annotation!r}")
        traits.append(
            {
                "name": name,
                "kind": kind,
                "default": list(default) if isinstance(default, tuple) else default,
                "allow_none": optional or default is None,  # unset is None: "not set"
                "values": list(choices) if choices is not None else None,
                "help": info.description or "",
                "env": setting.env,
            }
        )
    options: list[OptionEntry] = [{"flags": list(item.flags), "keywords": _as_json(item.keywords)} for item in cell_options()]
    return {"traits": traits, "cell_options": options}


def _as_json(keywords: Mapping[str, object]) -> dict[str, object]:
    converted = {}
    for key, value in keywords.items():
        if key == "type":
            value = _OPTION_TYPES[value]
        converted[key] = list(value) if isinstance(value, tuple) else value
    return converted


def _without_none(annotation: object) -> tuple[object, bool]:
    parts = get_args(annotation)
    if type(None) in parts and get_origin(annotation) is not Literal:
        rest = [part for part in parts if part is not type(None)]
        return (rest[0] if len(rest) == 1 else annotation), True
    return annotation, False


def cell_options() -> list[Option]:
    """The ``%%agent`` options, in the order of the declarations (``options_after`` moves some)."""
    entries = [(name, _with_dest(name, setting.options), setting) for name, _info, setting in settings_declared()]
    later = {setting.options_after: options for _name, options, setting in entries if setting.options_after}
    found: list[Option] = []
    for name, options, setting in entries:
        if not setting.options_after:
            found += [*options, *later.get(name, ())]
    return found


def _with_dest(name: str, options: tuple[Option, ...]) -> tuple[Option, ...]:
    """The options with ``dest`` the setting's name unless they name another (--no-memory sets memory)."""
    return tuple(replace(item, keywords={"dest": name, **item.keywords}) for item in options)


def given_by(args: argparse.Namespace, **readers: Callable[[argparse.Namespace], object]) -> dict[str, object]:
    """What a parsed option line sets of a turn's settings (None: not given); ``readers`` read the
    settings whose options need parsing (a list of names, two options for one setting)."""
    given = {}
    for name, _info, setting in declared(TurnSettings):
        if name in readers:
            given[name] = readers[name](args)
        elif setting.options and hasattr(args, name):
            given[name] = getattr(args, name)
    return given


def serve_options() -> list[Option]:
    """The options ``%agent serve`` takes of a turn's, with its own help."""
    return [
        item
        for name, _info, setting in declared(TurnSettings)
        for item in _with_dest(name, setting.options)
        if item.serve is not None
    ]


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


if __name__ == "__main__":
    import json

    print(json.dumps(table(), indent=1, ensure_ascii=False))
