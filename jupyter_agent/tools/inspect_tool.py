"""The ``inspect`` tool: one object described without running visible code, under the data policy.

The object is named by a variable or an attribute path (``df``, ``model.coef_``), resolved with
static lookups; a property on the path is read (that is how such attributes are exposed).
"""

from __future__ import annotations

import inspect
import itertools
import re
import types
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.caps import OutputCaps, human_size, truncate_head
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.describe_data import describe_dataframe, describe_ndarray, describe_series
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.objects import (
    is_dataframe,
    is_ndarray,
    is_series,
    memory_bytes,
    safe_repr,
    scalar_text,
    shape_text,
    type_name,
)

DESCRIPTION = (
    "Describe one object of the notebook's namespace without running code: DataFrames (dtypes, "
    "shape, nulls, describe(), sample rows), Series, arrays, modules, functions and classes "
    "(signature and docstring), containers and other objects. Takes a name or attribute path."
)

_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# A docstring longer than this is reference material; the model can read the rest with python.
DOC_CHARS = 3000
# Names of a module's or class's members: enough to find the right one, then inspect it.
MAX_NAMES = 150
_MISSING = object()
CONTAINERS = (list, tuple, set, frozenset, dict)
# Element types are summarized from a prefix: counting a 1e7-item list would take seconds.
TYPE_SAMPLE = 1000


class InspectArgs(BaseModel):
    name: str = Field(description="Variable name or attribute path, e.g. df or model.coef_.")


def inspect_tool(shell: Any, policy: DataPolicy, caps: OutputCaps) -> AgentTool:
    async def execute(args: InspectArgs, signal) -> list:
        value = resolve(shell.user_ns, args.name.strip())
        return [TextContent(text=truncate_head(describe(args.name.strip(), value, policy), caps))]

    return AgentTool(
        name="inspect", description=DESCRIPTION, parameters=InspectArgs, execute=execute, label="Inspect", read_only=True
    )


def resolve(namespace: dict, path: str) -> Any:
    if not _PATH.fullmatch(path):
        raise ToolError(
            f"{path!r} is not a name or attribute path. inspect takes forms like df or model.coef_ "
            "(no calls, indexing or other expressions); use python for anything else."
        )
    first, *attributes = path.split(".")
    if first not in namespace:
        raise ToolError(f"No variable named {first!r} in the namespace. Use variables to list them.")
    value = namespace[first]
    for index, attribute in enumerate(attributes, start=2):
        value = _attribute(value, attribute, ".".join(path.split(".")[:index]))
    return value


def _attribute(value: Any, attribute: str, path: str) -> Any:
    try:
        static = inspect.getattr_static(value, attribute)
    except AttributeError:
        static = _MISSING
    if static is _MISSING:
        if is_dataframe(value) and attribute in value.columns:
            return value[attribute]
        raise ToolError(f"{path} does not exist.")
    if not hasattr(type(static), "__get__"):
        return static
    try:
        return getattr(value, attribute)
    except Exception as error:  # noqa: BLE001 - a failing property is an answer, not a crash
        raise ToolError(f"Reading {path} failed: {type(error).__name__}: {error}") from None


def describe(path: str, value: Any, policy: DataPolicy) -> str:
    if is_dataframe(value):
        return f"{path}: " + describe_dataframe(value, policy)
    if is_series(value):
        return f"{path}: " + describe_series(value, policy)
    if is_ndarray(value):
        return f"{path}: " + describe_ndarray(value, policy)
    if isinstance(value, types.ModuleType):
        return _describe_module(path, value)
    if inspect.isclass(value) or inspect.isroutine(value):
        return _describe_callable(path, value)
    return _describe_value(path, value, policy)


def _describe_module(path: str, module: types.ModuleType) -> str:
    namespace = vars(module)
    lines = [f"{path}: module {namespace.get('__name__', path)}"]
    if isinstance(namespace.get("__file__"), str):
        lines.append(f"file: {namespace['__file__']}")
    lines += _doc_lines(namespace.get("__doc__"))
    public = sorted(name for name in namespace if not name.startswith("_"))
    if public:
        lines.append(f"{len(public)} public names: " + _names(public))
    return "\n".join(lines)


def _describe_callable(path: str, value: Any) -> str:
    kind = "class" if inspect.isclass(value) else type(value).__name__
    try:
        signature = str(inspect.signature(value))
    except (TypeError, ValueError):
        signature = "(…)"  # builtins without a text signature
    module = getattr(value, "__module__", None)
    name = getattr(value, "__qualname__", path)
    lines = [f"{path}: {kind} {name}{signature}" + (f"  [module {module}]" if module else "")]
    lines += _doc_lines(inspect.getdoc(value))
    if inspect.isclass(value):
        members = _class_members(value)
        if members:
            lines.append("public attributes and methods: " + _names(members))
    return "\n".join(lines)


def _describe_value(path: str, value: Any, policy: DataPolicy) -> str:
    facts = [type_name(value)]
    shape = shape_text(value)
    if shape:
        facts.append(shape)
    size = memory_bytes(value)
    if size is not None:
        facts.append(human_size(size) + " (shallow)")
    lines = [f"{path}: " + ", ".join(facts)]
    cls = type(value)
    text_like = cls in (str, bytes, bytearray) or scalar_text(value) is not None
    if cls in CONTAINERS:
        sample = list(itertools.islice(value.values() if cls is dict else value, TYPE_SAMPLE))
        counts = Counter(type_name(item) for item in sample)
        kinds = ", ".join(f"{name} ×{count}" for name, count in counts.most_common(10))
        lines.append(f"element types (first {len(sample)}): {kinds or 'none'}")
        if policy.shows_values and policy.row_limit:
            lines.append("first items: " + _preview(value, policy))
    elif text_like:
        if policy.shows_values:
            lines.append("value: " + safe_repr(value, _chars(policy)))
    else:
        lines += _object_lines(value, policy)
    if not policy.shows_values:
        lines.append("[Data policy 'schema': values are not shown.]")
    return "\n".join(lines)


def _preview(container: Any, policy: DataPolicy) -> str:
    # safe_repr stops at max_items, so a huge container costs only what is shown.
    return safe_repr(container, _chars(policy), depth=3, max_items=policy.row_limit)


def _chars(policy: DataPolicy) -> int:
    # "sample" shows the start of a long string; "full" as much as the output cap allows.
    return 200 if policy.mode == "sample" else 20_000


def _class_members(cls: type) -> list[str]:
    return sorted({name for klass in cls.__mro__ if klass is not object for name in vars(klass) if not name.startswith("_")})


def _names(names: list[str]) -> str:
    more = f" … and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    return ", ".join(names[:MAX_NAMES]) + more


def _object_lines(value: Any, policy: DataPolicy) -> list[str]:
    lines = _doc_lines(inspect.getdoc(type(value)), limit=300)
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except AttributeError:
        attributes = {}
    if isinstance(attributes, dict) and attributes:
        lines.append("attributes:")
        for name, item in list(attributes.items())[:MAX_NAMES]:
            shape = shape_text(item)
            literal = scalar_text(item) if policy.shows_values else None
            detail = ", ".join(filter(None, [type_name(item), shape]))
            lines.append(f"  {name}: {detail}" + (f" = {literal}" if literal is not None else ""))
    members = _class_members(type(value))
    if members:
        lines.append("methods and class attributes: " + _names(members))
    return lines


def _doc_lines(doc: Any, limit: int = DOC_CHARS) -> list[str]:
    if not isinstance(doc, str) or not doc.strip():
        return []
    doc = doc.strip()
    if len(doc) > limit:
        doc = doc[:limit] + f"\n[… docstring cut at {limit} characters]"
    return ["doc:", doc]
