"""Copies that let undo restore a value changed in place, within a size limit.

Only values the code names are copied (a value the code never names is rarely changed by it),
only of types whose copy is well defined, and only under ``limit`` bytes of data: a copy of a
big array is exactly what a notebook cannot afford. pandas 3 (or 2 with copy-on-write on) and
polars share the data with the copy until one side writes, so their copies cost next to
nothing until the agent's code actually changes the value.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass
from typing import Any

from jupyter_agent.features.kernel_state.fingerprints import Fingerprint, human_bytes

DEFAULT_LIMIT_MB = 100.0
MAX_CONTAINER_ITEMS = 100_000  # a deep copy walks every item


@dataclass(frozen=True)
class Kept:
    value: Any  # the copy (restored as is)
    nbytes: int


@dataclass(frozen=True)
class NotKept:
    reason: str  # why no copy was taken, said to the user by undo


def keep_copy(value: Any, print_: Fingerprint, limit_bytes: int) -> Kept | NotKept:
    module = type(value).__module__.split(".")[0]
    size = print_.nbytes if print_.nbytes is not None else sys.getsizeof(value)
    if module in ("numpy", "pandas", "polars") or isinstance(value, (list, dict, set, bytearray)):
        if size > limit_bytes:
            return NotKept(f"{human_bytes(size)}, over the {human_bytes(limit_bytes)} snapshot limit")
    try:
        if module == "pandas" and hasattr(value, "copy"):
            return Kept(value.copy(deep=not copy_on_write()), size)
        if module == "numpy" and hasattr(value, "copy") and hasattr(value, "dtype"):
            return Kept(value.copy(), size)
        if module == "polars" and hasattr(value, "clone"):
            return Kept(value.clone(), size)
        if isinstance(value, bytearray):
            return Kept(bytearray(value), size)
        if isinstance(value, (list, dict, set)):
            if len(value) > MAX_CONTAINER_ITEMS:
                return NotKept(f"{len(value)} items, more than the {MAX_CONTAINER_ITEMS} a snapshot copies")
            return Kept(copy.deepcopy(value), size)
    except Exception as error:  # noqa: BLE001 - an uncopyable value is reported, never fatal
        return NotKept(f"it could not be copied ({type(error).__name__}: {error})")
    return NotKept(f"no snapshot is taken of a {type(value).__name__}")


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


__all__ = ["DEFAULT_LIMIT_MB", "Kept", "NotKept", "copy_on_write", "keep_copy"]
