"""The ``inspect`` tool: one object described without running visible code, under the data policy.

The object is named by a variable or an attribute path (``df``, ``model.coef_``), resolved with
static lookups only: instance attributes, methods and the interpreter's or pandas'/numpy's own
descriptors are read; a property, ``cached_property`` or other descriptor written in Python is
user code with possible effects, so inspect names it instead of running it (python can read it).
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
from jupyter_agent.tools.describe_engines import describe_engine_frame
from jupyter_agent.tools.disclosure import under_policy
from jupyter_agent.tools.engine_frames import engine_kind
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.objects import (
    LIBRARY_MODULES,
    instance_dict,
    is_a,
    is_dataframe,
    is_ndarray,
    is_series,
    memory_bytes,
    safe_repr,
    scalar_text,
    shape_text,
    type_name,
    value_header,
)

DESCRIPTION = (
    "Describe one object of the notebook's namespace without running code: DataFrames (dtypes, "
    "shape, nulls, describe(), sample rows), Polars/Arrow/DuckDB/Dask/Spark frames (schema and a few "
    "rows, never computing the whole), Series, arrays, modules, functions and classes "
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
    count_rows: bool = Field(
        default=False,
        description="Count the rows of a lazy or distributed frame (Dask, Spark, Polars lazy, DuckDB): runs the engine over all of it.",
    )


def inspect_tool(shell: Any, policy: DataPolicy, caps: OutputCaps) -> AgentTool:
    async def execute(args: InspectArgs, signal) -> Any:
        value = resolve(shell.user_ns, args.name.strip())
        text = truncate_head(describe(args.name.strip(), value, policy, count_rows=args.count_rows), caps)
        return under_policy([TextContent(text=text)], policy)

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
        raise ToolError(f"{path} does not exist (or only a __getattr__ could make it, which inspect does not run).")
    kind = type(static)
    if not hasattr(kind, "__get__") or _is_own_attribute(value, attribute, static):
        return static
    if kind is types.FunctionType:
        return types.MethodType(static, value)  # bound without asking the object
    if kind is staticmethod:
        return static.__func__
    if kind is classmethod:
        return types.MethodType(static.__func__, value if is_a(value, type) else type(value))
    if kind in _INTERPRETER_DESCRIPTORS or _from_library(kind) or _from_library(getattr(static, "fget", None)):
        try:
            return static.__get__(None if is_a(value, type) else value, value if is_a(value, type) else type(value))
        except Exception as error:  # noqa: BLE001 - a failing attribute is an answer, not a crash
            raise ToolError(f"Reading {path} failed: {type(error).__name__}: {error}") from None
    raise ToolError(
        f"{path} is a {kind.__name__}: reading it runs code of the object's class, which inspect never does. "
        f"Inspect the object itself, or read it with python if running that code is safe."
    )


# Descriptors implemented by the interpreter: reading them runs no Python code.
_INTERPRETER_DESCRIPTORS = (
    types.MemberDescriptorType,
    types.GetSetDescriptorType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
    types.BuiltinFunctionType,
)


def _is_own_attribute(value: Any, attribute: str, static: Any) -> bool:
    """The value came from the object's (or the class's own) ``__dict__``, not through a descriptor."""
    own = instance_dict(value) if not is_a(value, type) else type.__dict__["__dict__"].__get__(value)
    return own is not None and attribute in own and own[attribute] is static and not is_a(value, type)


def _from_library(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) if obj is not None and type(obj) in (type, types.FunctionType) else None
    return isinstance(module, str) and module.split(".")[0] in LIBRARY_MODULES


def describe(path: str, value: Any, policy: DataPolicy, *, count_rows: bool = False) -> str:
    if is_dataframe(value):
        return f"{path}: " + describe_dataframe(value, policy)
    if is_series(value):
        return f"{path}: " + describe_series(value, policy)
    if is_ndarray(value):
        return f"{path}: " + describe_ndarray(value, policy)
    kind = engine_kind(value)
    if kind is not None:
        try:
            return f"{path}: " + describe_engine_frame(value, kind, policy, count_rows=count_rows)
        except Exception as error:  # noqa: BLE001 - the engine's own failure (a broken plan) is the answer
            raise ToolError(f"Describing {path} failed in the engine: {type(error).__name__}: {str(error)[:300]}") from None
    if is_a(value, types.ModuleType):
        return _describe_module(path, value)
    if is_a(value, type) or is_a(value, _ROUTINES):
        return _describe_callable(path, value)
    return _describe_value(path, value, policy)


# Functions and methods (inspect.isroutine without isinstance, which reads __class__).
_ROUTINES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.ClassMethodDescriptorType,
)


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
    kind = "class" if is_a(value, type) else type(value).__name__
    try:
        signature = str(inspect.signature(value))
    except (TypeError, ValueError):
        signature = "(…)"  # builtins without a text signature
    module = getattr(value, "__module__", None)
    name = getattr(value, "__qualname__", path)
    lines = [f"{path}: {kind} {name}{signature}" + (f"  [module {module}]" if module else "")]
    lines += _doc_lines(_routine_doc(value))
    if is_a(value, type):
        members = _class_members(value)
        if members:
            lines.append("public attributes and methods: " + _names(members))
    return "\n".join(lines)


def _describe_value(path: str, value: Any, policy: DataPolicy) -> str:
    header = value_header(path, value)
    size = memory_bytes(value)
    if size is not None:
        header += f", {human_size(size)} (shallow)"
    lines = [header]
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
    lines = _doc_lines(inspect.cleandoc(_class_doc(type(value)) or ""), limit=300)
    attributes = instance_dict(value) or {}
    if attributes:
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


def _routine_doc(value: Any) -> str | None:
    """The docstring of a class or routine (inspect.getdoc reads a bound method's __self__.__class__)."""
    if is_a(value, type):
        doc = _class_doc(value)
    else:
        function = value.__func__ if type(value) is types.MethodType else value
        doc = function.__doc__ if type(function) in _ROUTINES else None
    return inspect.cleandoc(doc) if isinstance(doc, str) else None


def _class_doc(cls: type) -> str | None:
    """The class's docstring from the first class of its MRO that has one (no metaclass code)."""
    for klass in type.__dict__["__mro__"].__get__(cls):
        doc = type.__dict__["__dict__"].__get__(klass).get("__doc__")
        if isinstance(doc, str) and klass is not object:
            return doc
    return None


def _doc_lines(doc: Any, limit: int = DOC_CHARS) -> list[str]:
    if not isinstance(doc, str) or not doc.strip():
        return []
    doc = doc.strip()
    if len(doc) > limit:
        doc = doc[:limit] + f"\n[… docstring cut at {limit} characters]"
    return ["doc:", doc]
