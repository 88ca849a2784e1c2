"""Copies that let undo restore a value changed in place, within a size limit.

Only values the code names are copied (a value the code never names is rarely changed by it),
only of types whose copy is well defined, and only under ``limit`` bytes of data: a copy of a
big array is exactly what a notebook cannot afford. pandas 3 (or 2 with copy-on-write on) and
polars share the data with the copy until one side writes, so their copies cost next to
nothing until the agent's code actually changes the value.

No copy runs user code: the library's own ``copy`` for numpy, pandas and polars objects (their
classes only), and for exact builtin containers a copy of the containers alone (``plain_copy``):
nested lists, dicts, sets and tuples are copied, every other item is the same object in the copy
(``copy.deepcopy`` would call its ``__deepcopy__`` or ``__reduce_ex__``), so undo restores which
items a list holds, not what happened inside them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.features.kernel_state.fingerprints import CONTAINERS, Fingerprint, human_bytes, library_of, type_name

DEFAULT_LIMIT_MB = 100.0
MAX_CONTAINER_ITEMS = 100_000  # a copy walks every item
MAX_DEPTH = 100  # containers nested deeper are not copied (a copy would need the whole stack)
_PLAIN_KEYS = (str, int, float, bool, bytes, type(None))


@dataclass(frozen=True)
class Kept:
    value: object  # the copy (restored as is)
    nbytes: int


@dataclass(frozen=True)
class NotKept:
    reason: str  # why no copy was taken, said to the user by undo


def keep_copy(value: Any, print_: Fingerprint, limit_bytes: int) -> Kept | NotKept:
    cls = type(value)
    module = library_of(cls)
    size = print_.nbytes if print_.nbytes is not None else (sys.getsizeof(value) if cls in CONTAINERS else 0)
    if module in ("numpy", "pandas", "polars") or cls in CONTAINERS:
        if size > limit_bytes:
            return NotKept(f"{human_bytes(size)}, over the {human_bytes(limit_bytes)} snapshot limit")
    try:
        if module == "pandas" and hasattr(cls, "copy"):
            return Kept(value.copy(deep=not copy_on_write()), size)
        if module == "numpy" and hasattr(cls, "copy") and hasattr(cls, "dtype"):
            return Kept(value.copy(), size)
        if module == "polars" and hasattr(cls, "clone"):
            return Kept(value.clone(), size)
        if cls is bytearray:
            return Kept(bytearray(value), size)
        if cls in (list, dict, set):
            counter = [0]
            copied = plain_copy(value, {}, counter, 0)
            return Kept(copied, size)
    except _TooBig as refusal:
        return NotKept(str(refusal))
    except Exception as error:  # noqa: BLE001 - an uncopyable value is reported, never fatal
        return NotKept(f"it could not be copied ({type_name(type(error))}: {error})")
    return NotKept(f"no snapshot is taken of a {type_name(cls)}")


class _TooBig(JupyterAgentError):
    pass


def plain_copy(value: Any, memo: dict[int, Any], counter: list[int], depth: int) -> Any:
    """``value`` with every exact list, dict, set and tuple in it copied, anything else shared.

    ``memo`` keeps what was copied by identity (a list that holds itself stays one list);
    ``counter`` counts the items walked, over ``MAX_CONTAINER_ITEMS`` the copy is refused.
    """
    cls = type(value)
    if cls not in (list, dict, set, tuple):
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    if depth > MAX_DEPTH:
        raise _TooBig(f"containers nested more than {MAX_DEPTH} deep are not copied")
    counter[0] += len(value)
    if counter[0] > MAX_CONTAINER_ITEMS:
        raise _TooBig(f"more than the {MAX_CONTAINER_ITEMS} items a snapshot copies")
    copied: Any
    if cls is list:
        copied = memo[id(value)] = []
        copied.extend(plain_copy(item, memo, counter, depth + 1) for item in value)
    elif cls is dict:
        copied = memo[id(value)] = value.copy()  # copied with the hashes it holds: no key's __hash__ runs
        for key, item in value.items():
            # Storing under a key hashes it again: only keys whose hash is the interpreter's own.
            if type(item) in (list, dict, set, tuple) and type(key) in _PLAIN_KEYS:
                copied[key] = plain_copy(item, memo, counter, depth + 1)
    elif cls is set:
        copied = memo[id(value)] = set(value)  # members are hashable, so immutable in practice: shared
    else:
        copied = tuple(plain_copy(item, memo, counter, depth + 1) for item in value)
        memo[id(value)] = copied
    return copied


def copy_on_write() -> bool:
    """Whether pandas shares data between a frame and its shallow copy until one is written."""
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return False
    if int(pandas.__version__.split(".")[0]) >= 3:
        return True
    try:
        return bool(pandas.options.mode.copy_on_write is True)
    except AttributeError:
        return False


__all__ = ["DEFAULT_LIMIT_MB", "Kept", "NotKept", "copy_on_write", "keep_copy", "plain_copy"]
