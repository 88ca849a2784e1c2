"""What a completion request knows besides the cell: the live variables its prefix names.

Every fact comes from static lookups and library code (``tools.objects``), as ``variables`` and
``inspect`` do: no user code runs, so describing a variable can neither be slow nor have effects.
A name is described only when the prefix refers to it, and each description is short: a notebook
with hundreds of variables still yields a prompt of a few hundred tokens.
"""

from __future__ import annotations

import keyword
import re
import types
from dataclasses import dataclass
from typing import Any, Callable

from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.inspect_tool import resolve
from jupyter_agent.tools.objects import (
    instance_dict,
    is_a,
    is_agent_object,
    is_dataframe,
    is_ndarray,
    is_series,
    scalar_text,
    type_name,
    value_header,
)

# Names and attribute paths in source text (``df``, ``model.encoder``); strings are not stripped:
# a name inside one that is also a variable is still likely what the user means.
_PATH = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_TRAILING = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\.?\s*(?:\[\s*['\"]?)?$")
# What the prefix refers to is near the cursor: the last lines, not the whole cell.
PREFIX_SCAN_CHARS = 1_200
MAX_VARIABLES = 8  # the nearest ones; a completion needs the few the cursor is about
MAX_COLUMNS = 40  # a wide frame's first columns already show its naming
MAX_ATTRIBUTES = 30
DESCRIPTION_CHARS = 600
_IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})


@dataclass(frozen=True)
class VariableFact:
    path: str  # "df" or "model.encoder"
    text: str  # one or a few lines: type, shape, columns and dtypes, attributes
    members: tuple[str, ...] = ()  # what may follow ``path.``: its columns, attributes and methods


def referenced_variables(prefix: str, namespace: dict[str, object], policy: DataPolicy) -> list[VariableFact]:
    """The variables (and attribute paths) the end of ``prefix`` names, nearest to the cursor first."""
    scan = prefix[-PREFIX_SCAN_CHARS:]
    paths: list[str] = []
    trailing = _TRAILING.search(scan)
    if trailing:
        paths.append(trailing.group(1))
    paths += reversed([match.group(0) for match in _PATH.finditer(scan)])
    facts: list[VariableFact] = []
    seen: set[str] = set()
    for named in paths:
        path = _known_prefix(named, namespace)
        if path is None or path in seen:
            continue
        seen.add(path)
        try:
            value = resolve(namespace, path)
        except ToolError:
            continue
        if is_agent_object(value) or is_a(namespace[path.split(".")[0]], types.ModuleType):
            continue  # a module and its API are the library's: the model knows pandas better than a listing
        facts.append(VariableFact(path, _cap(describe_for_completion(path, value, policy)), member_names(value)))
        if len(facts) >= MAX_VARIABLES:
            break
    return facts


def _known_prefix(path: str, namespace: dict[str, object]) -> str | None:
    """The longest part of ``path`` that resolves statically (``df.revenue.su`` → ``df.revenue``)."""
    parts = path.split(".")
    first = parts[0]
    if first.startswith("_") or first in _IPYTHON_NAMES or keyword.iskeyword(first) or first not in namespace:
        return None
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        try:
            resolve(namespace, candidate)
        except ToolError:
            continue
        return candidate
    return None


def describe_for_completion(path: str, value: Any, policy: DataPolicy) -> str:
    """``path``'s type, shape and members in a few lines, under ``policy`` (values only if it shows them)."""
    head = value_header(path, value)
    if is_dataframe(value):
        columns = [f"{_label(name)} ({dtype})" for name, dtype in list(value.dtypes.items())[:MAX_COLUMNS]]
        more = f", … {value.shape[1] - MAX_COLUMNS} more" if value.shape[1] > MAX_COLUMNS else ""
        return f"{head}\n  columns: {', '.join(columns)}{more}"
    if is_series(value):
        return f"{head}, dtype {value.dtype}, name {_label(value.name)}"
    if is_ndarray(value):
        return f"{head}, dtype {value.dtype}"
    if type(value) is dict:
        keys = [repr(key) for key in list(value)[:MAX_ATTRIBUTES] if type(key) in (str, int)]
        return f"{head}\n  keys: {', '.join(keys)}" if keys and policy.shows_values else head
    literal = scalar_text(value) if policy.shows_values else None
    if literal is not None:
        return f"{head} = {literal}"
    if type(value) in (types.FunctionType, types.MethodType, types.BuiltinFunctionType):
        return head + _signature(value)
    return head + _members(value)


def member_names(value: Any) -> tuple[str, ...]:
    """Columns of a frame (in order), else the public attributes then the class's members."""
    if is_dataframe(value):
        return tuple(str(name) for name in list(value.columns)[:MAX_COLUMNS])
    own = [name for name in instance_dict(value) or {} if not name.startswith("_")]
    return tuple(own[:MAX_ATTRIBUTES]) + tuple(name for name in _class_members(value) if name not in own)


def _class_members(value: object) -> list[str]:
    if is_dataframe(value) or is_series(value) or is_ndarray(value):
        return []  # the library's API: the model knows it, and it is hundreds of names
    cls = value if is_a(value, type) else type(value)
    return sorted(
        {
            name
            for klass in type.__dict__["__mro__"].__get__(cls)
            if klass is not object and klass.__module__ != "builtins"
            for name in type.__dict__["__dict__"].__get__(klass)
            if not name.startswith("_")
        }
    )


def _members(value: object) -> str:
    own = instance_dict(value) or {}
    attributes = [f"{name} ({type_name(item)})" for name, item in own.items() if not name.startswith("_")][:MAX_ATTRIBUTES]
    methods = _class_members(value)
    lines = []
    if attributes:
        lines.append("  attributes: " + ", ".join(attributes))
    if methods:
        more = f", … {len(methods) - MAX_ATTRIBUTES} more" if len(methods) > MAX_ATTRIBUTES else ""
        lines.append("  methods and class attributes: " + ", ".join(methods[:MAX_ATTRIBUTES]) + more)
    return "".join("\n" + line for line in lines)


def _signature(value: Callable[..., object]) -> str:
    import inspect

    try:
        return str(inspect.signature(value))  # a function's own code object: nothing of the user's runs
    except (TypeError, ValueError):
        return ""


def _label(name: object) -> str:
    return repr(name) if type(name) is str and not name.isidentifier() else str(name)


def _cap(text: str) -> str:
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"
