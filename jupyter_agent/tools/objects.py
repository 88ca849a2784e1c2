"""Facts about live objects that cost nothing and run no user code.

Known types (builtins, pandas, numpy) are asked for their length, shape and memory through the
library's own code; any other object only through ``type()`` and static lookups, because a
user-defined ``__len__``, ``__sizeof__``, property or ``__repr__`` could be slow or have effects.
Types are tested with ``issubclass(type(value), …)``, never ``isinstance``, which falls back to
reading ``value.__class__`` (a property a class may define).
"""

from __future__ import annotations

import datetime
import decimal
import inspect
import sys
import types
from typing import Any

from jupyter_agent.tools.engine_frames import engine_kind, engine_memory, engine_shape_text

# Builtin types whose len() and sys.getsizeof() are the interpreter's own.
SIZED_BUILTINS = (list, tuple, dict, set, frozenset, str, bytes, bytearray, range)
SCALARS = (bool, int, float, complex, type(None))
# Exact types whose str() is the standard library's own: shown as they are in table cells.
PLAIN_CELLS = (*SCALARS, str, bytes, datetime.date, datetime.datetime, datetime.time, datetime.timedelta, decimal.Decimal)
# Libraries whose properties and reprs the tools may run: they are not the user's code.
LIBRARY_MODULES = ("pandas", "numpy")


def is_a(value: Any, classes: type | tuple[type, ...]) -> bool:
    """``isinstance`` without reading ``value.__class__``."""
    return issubclass(type(value), classes)


def pandas_types() -> tuple[type, ...]:
    pandas = sys.modules.get("pandas")
    # Not imported means no object can be a DataFrame: the tools never import pandas themselves.
    return (pandas.DataFrame, pandas.Series) if pandas is not None else ()


def is_dataframe(value: Any) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and is_a(value, pandas.DataFrame)


def is_series(value: Any) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and is_a(value, pandas.Series)


def is_ndarray(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and is_a(value, numpy.ndarray)


def type_name(value: Any) -> str:
    cls = type(value)
    module = cls.__module__
    if module in ("builtins", "__main__") or module.startswith(("pandas", "numpy")):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def shape_text(value: Any) -> str | None:
    if is_dataframe(value):
        rows, columns = value.shape
        return f"{rows} rows × {columns} columns"
    if is_series(value):
        return f"{len(value)} rows"
    if is_ndarray(value):
        return "shape " + "×".join(str(size) for size in value.shape) if value.ndim else "scalar"
    if type(value) in SIZED_BUILTINS:
        return f"len {len(value)}"
    return engine_shape_text(value)  # Polars, Arrow, DuckDB, Dask, Spark: from metadata only


def value_header(name: str, value: Any) -> str:
    """How a live value is introduced, in every listing the model reads (variables, completion
    context, %agent fix's locals): ``"sales: DataFrame, 1200 rows × 8 columns"``, ``"rate: float"``."""
    shape = shape_text(value)
    return f"{name}: {type_name(value)}" + (f", {shape}" if shape else "")


def memory_bytes(value: Any) -> int | None:
    """Shallow memory use; ``None`` when it cannot be known without running user code."""
    try:
        if is_dataframe(value):
            # deep=False: measuring each Python object in an object column is O(rows).
            return int(value.memory_usage(index=True, deep=False).sum())
        if is_series(value):
            return int(value.memory_usage(index=True, deep=False))
        if is_ndarray(value):
            return int(value.nbytes)
    except Exception:  # noqa: BLE001 - a broken extension dtype must not break the listing
        return None
    if engine_kind(value) is not None:
        return engine_memory(value)
    if _sizeof_is_builtin(type(value)):
        return sys.getsizeof(value)
    return None


def _sizeof_is_builtin(cls: type) -> bool:
    try:
        sizeof = inspect.getattr_static(cls, "__sizeof__")
    except AttributeError:
        return False
    return not isinstance(sizeof, (types.FunctionType, staticmethod, classmethod, property))


def scalar_text(value: Any, max_chars: int = 80) -> str | None:
    """A short literal for scalars and short strings, ``None`` for anything else."""
    cls = type(value)
    if cls is int and value.bit_length() > 256:
        return None  # repr of a huge int is slow (and capped by the interpreter)
    if cls in SCALARS:
        return repr(value)
    if cls is str and len(value) <= max_chars:
        return repr(value)
    numpy = sys.modules.get("numpy")
    if numpy is not None and issubclass(cls, numpy.generic) and not issubclass(cls, numpy.void) and _from_library(cls):
        text = repr(value.item())
        return text if len(text) <= max_chars else text[:max_chars] + "…"
    return None


def is_agent_object(value: Any) -> bool:
    """The agent's own objects in the namespace (tools, sessions, controllers) are not user data."""
    if is_a(value, type):
        module = type.__dict__["__module__"].__get__(value)  # a metaclass property cannot run
    elif type(value) is types.FunctionType:
        module = value.__module__
    else:
        module = type(value).__module__
    module = module if isinstance(module, str) else ""
    return module == "jupyter_agent" or module.startswith("jupyter_agent.")


def instance_dict(value: Any) -> dict | None:
    """The object's ``__dict__`` if the interpreter keeps it (no ``__dict__`` property runs)."""
    for klass in type.__dict__["__mro__"].__get__(type(value)):
        descriptor = type.__dict__["__dict__"].__get__(klass).get("__dict__")
        if descriptor is None:
            continue
        if type(descriptor) not in (types.GetSetDescriptorType, types.MemberDescriptorType):
            return None  # defined in Python: reading it would run user code
        try:
            found = descriptor.__get__(value, type(value))
        except (AttributeError, TypeError):
            return None
        return found if type(found) is dict else None
    return None


def _from_library(cls: type) -> bool:
    module = cls.__module__ if isinstance(cls.__module__, str) else ""
    return module.split(".")[0] in LIBRARY_MODULES


def _library_scalar(cls: type) -> bool:
    """numpy scalars and pandas' time scalars: their str() never reaches user code."""
    if not _from_library(cls):
        return False
    numpy, pandas = sys.modules.get("numpy"), sys.modules.get("pandas")
    if numpy is not None and issubclass(cls, numpy.generic):
        return not issubclass(cls, (numpy.void, numpy.object_))
    return pandas is not None and cls in (pandas.Timestamp, pandas.Timedelta, pandas.Period, type(pandas.NaT))


def table_cell(value: Any) -> Any:
    """A DataFrame cell as shown in sample rows: plain values and library scalars as they are,
    builtin containers through ``safe_repr``, anything else as ``<type name>`` (its repr is user code)."""
    cls = type(value)
    if cls in PLAIN_CELLS or _library_scalar(cls):
        return value
    if cls in (list, tuple, set, frozenset, dict):
        return safe_repr(value, 60)
    shape = shape_text(value)
    return f"<{type_name(value)}{', ' + shape if shape else ''}>"


def safe_repr(value: Any, max_chars: int, depth: int = 2, max_items: int = 10) -> str:
    """A repr that only calls library code: scalars, strings and builtin containers of them."""
    cls = type(value)
    if cls is str:
        text = repr(value[:max_chars])
        # The ellipsis goes inside the closing quote, whichever quote repr chose.
        return text if len(value) <= max_chars else text[:-1] + "…" + text[-1]
    if cls in (bytes, bytearray):
        return repr(bytes(value[:max_chars])) + ("…" if len(value) > max_chars else "")
    literal = scalar_text(value, max_chars)
    if literal is not None:
        return literal
    if cls in (list, tuple, set, frozenset, dict) and depth > 0:
        pairs = value.items() if cls is dict else value
        parts: list[str] = []
        used = 0
        for index, item in enumerate(pairs):
            # Stop at the item count or the character budget, whichever comes first.
            if index >= max_items or used > max_chars:
                parts.append(f"… {len(value) - index} more")
                break
            if cls is dict:
                text = f"{safe_repr(item[0], 40, 0)}: {safe_repr(item[1], max_chars // 2, depth - 1)}"
            else:
                text = safe_repr(item, max_chars // 2, depth - 1)
            parts.append(text)
            used += len(text) + 2
        brackets: dict[type, str] = {list: "[]", tuple: "()", set: "{}", frozenset: "{}", dict: "{}"}
        open_, close = brackets[cls][0], brackets[cls][1]
        return open_ + ", ".join(parts) + close
    return f"<{type_name(value)}>"
