"""Cheap fingerprints of namespace values: enough to tell rebound, mutated and unchanged apart.

A fingerprint never copies data. It is the value's identity and type, plus for the mutable
values people keep in notebooks a shape and a hash: the whole content when it is small, a fixed
sample of positions when it is big (so a change outside the sample can go unnoticed, by design).
Unknown objects get identity and type only: reading attributes of an arbitrary object can run
arbitrary code (a lazy frame's ``shape`` may compute it).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any, NamedTuple

SAMPLE = 64  # positions read from a big array, column or container
FULL_HASH_BYTES = 64 * 1024  # arrays this small are hashed whole
FULL_HASH_ITEMS = 4096  # containers this small are hashed whole (by the identities of their items)
MAX_SAMPLED_COLUMNS = 64
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range, frozenset)
_CODE = (FunctionType, BuiltinFunctionType, MethodType, type, ModuleType)
PLAIN_TYPES = frozenset((*_IMMUTABLE, FunctionType, ModuleType))  # the common case, by exact type


class Fingerprint(NamedTuple):
    # A tuple: hundreds are made around every python call, and a tuple is the cheapest record.
    identity: int
    kind: str  # the type's name: "DataFrame", "ndarray", "list", …
    shape: tuple[int, ...] | None = None  # rows × columns, an array's shape, or (len,)
    columns: tuple[str, ...] | None = None  # a frame's column names
    digest: str | None = None  # content hash (whole or sampled); None when not looked at
    nbytes: int | None = None  # the data's size when known without walking it

    def same_content(self, other: Fingerprint) -> bool:
        return (self.kind, self.shape, self.columns, self.digest) == (other.kind, other.shape, other.columns, other.digest)


def fingerprint(value: Any) -> Fingerprint:
    cls = type(value)
    kind = cls.__name__
    if cls in PLAIN_TYPES or isinstance(value, _IMMUTABLE) or isinstance(value, _CODE):
        return Fingerprint(id(value), kind)
    try:
        module = type(value).__module__.split(".")[0]
        if module == "numpy" and hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "flat"):
            return _array(value, kind)
        if module == "pandas":
            if hasattr(value, "columns") and hasattr(value, "_mgr"):
                return _frame(value, kind)
            if hasattr(value, "dtype") and hasattr(value, "array"):
                return _series(value, kind)
        if module == "polars" and kind == "DataFrame":
            return Fingerprint(id(value), kind, tuple(value.shape), tuple(map(str, value.columns)), None, value.estimated_size())
        if isinstance(value, (list, tuple, dict, set, bytearray)):
            return _container(value, kind)
    except Exception:  # noqa: BLE001 - a value that cannot be read is compared by identity
        pass
    return Fingerprint(id(value), kind)


def light(value: Any) -> Fingerprint:
    """Identity and type only: for values the code could not have changed in place (see ``watch``)."""
    return Fingerprint(id(value), type(value).__name__)


def still_matches(value: Any, print_: Fingerprint) -> bool:
    """Whether ``value`` still matches ``print_``, at the detail the print was taken with."""
    if id(value) != print_.identity:
        return False
    if print_.digest is None and print_.shape is None:
        return True  # an identity-only print: the same object is all it can tell
    return fingerprint(value).same_content(print_)


def describe(value: Any, print_: Fingerprint | None = None) -> str:
    """A short label: "DataFrame 1200×8", "ndarray (3, 4) float64", "list of 3", "int"."""
    print_ = print_ or fingerprint(value)
    kind, shape = print_.kind, print_.shape
    if shape is None:
        return kind
    if print_.columns is not None and len(shape) == 2:
        return f"{kind} {shape[0]}×{shape[1]}"
    if kind in ("ndarray", "Series"):
        dtype = getattr(value, "dtype", "")
        size = f", {human_bytes(print_.nbytes)}" if print_.nbytes and print_.nbytes >= 1 << 20 else ""
        return f"{kind} {shape if len(shape) > 1 else shape[0]} {dtype}{size}".replace("  ", " ")
    return f"{kind} of {shape[0]}"


def human_bytes(count: int | None) -> str:
    size = float(count or 0)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"  # pragma: no cover - the loop returns at GB


def _array(array: Any, kind: str) -> Fingerprint:
    shape = tuple(int(n) for n in array.shape)
    nbytes = int(array.nbytes)
    digest = hashlib.blake2b(str(array.dtype).encode(), digest_size=16)
    if array.dtype.hasobject:
        digest.update(repr([id(item) for item in _sample_flat(array)]).encode())
    elif nbytes <= FULL_HASH_BYTES:
        digest.update(array.tobytes())
    else:
        digest.update(_sample_flat(array).tobytes())
    return Fingerprint(id(array), kind, shape, None, digest.hexdigest(), nbytes)


def _sample_flat(array: Any) -> Any:
    import numpy

    size = int(array.size)
    if size == 0:
        return numpy.empty(0, dtype=array.dtype)
    # The first and last elements always, then evenly spread positions (``flat`` never copies the array).
    positions = numpy.unique(numpy.linspace(0, size - 1, num=min(size, SAMPLE), dtype=numpy.int64))
    return array.flat[positions]


def _frame(frame: Any, kind: str) -> Fingerprint:
    rows, width = (int(n) for n in frame.shape)
    columns = tuple(str(column) for column in frame.columns)
    digest = hashlib.blake2b(repr(frame.index.dtype).encode(), digest_size=16)
    nbytes = 0
    positions = _positions(rows)
    # Blocks hold the columns' data (one 2-D array per dtype): sampled there, no column is materialized.
    blocks = list(frame._mgr.blocks)[:MAX_SAMPLED_COLUMNS]
    for block in blocks:
        values = block.values
        nbytes += int(getattr(values, "nbytes", 0) or 0)
        sampled = values[..., positions] if getattr(values, "ndim", 1) == 2 else values.take(positions)
        digest.update(repr(block.mgr_locs.as_array.tolist()).encode())
        digest.update(_bytes_of(sampled))
    digest.update(_bytes_of(frame.index[positions] if rows else ()))
    return Fingerprint(id(frame), kind, (rows, width), columns, digest.hexdigest(), nbytes)


def _series(series: Any, kind: str) -> Fingerprint:
    length = len(series)
    positions = _positions(length)
    values = series.array
    digest = hashlib.blake2b(f"{series.dtype}|{series.name}".encode(), digest_size=16)
    digest.update(_bytes_of(values.take(positions) if length else ()))
    return Fingerprint(id(series), kind, (length,), None, digest.hexdigest(), int(getattr(values, "nbytes", 0) or 0))


@functools.lru_cache(maxsize=256)
def _positions(length: int) -> Any:
    import numpy

    if length <= SAMPLE:
        return numpy.arange(length)
    return numpy.unique(numpy.linspace(0, length - 1, num=SAMPLE, dtype=numpy.int64))


def _bytes_of(sampled: Any) -> bytes:
    try:
        import numpy

        array = numpy.asarray(sampled)
        if not array.dtype.hasobject:
            return array.tobytes()
        return repr(array.tolist()).encode()
    except Exception:  # noqa: BLE001 - an exotic extension array: its repr still changes with its values
        return repr(sampled).encode()


def _container(value: Any, kind: str) -> Fingerprint:
    length = len(value)
    if isinstance(value, bytearray):
        data = bytes(value) if length <= FULL_HASH_BYTES else bytes(value[:: max(1, length // SAMPLE)])
        return Fingerprint(id(value), kind, (length,), None, hashlib.blake2b(data, digest_size=16).hexdigest(), length)
    identities: list[Any]
    if isinstance(value, dict):
        identities = [(id(key), id(item)) for key, item in _take(value.items(), length)]
    elif isinstance(value, set):
        identities = [id(item) for item in _take(value, length)]
    else:
        step = 1 if length <= FULL_HASH_ITEMS else max(1, length // SAMPLE)
        identities = [id(item) for item in value[::step]]
        if length:
            identities.append(id(value[-1]))
    digest = hashlib.blake2b(repr(identities).encode(), digest_size=16).hexdigest()
    return Fingerprint(id(value), kind, (length,), None, digest, sys.getsizeof(value))


def _take(items: Any, length: int) -> list[Any]:
    # Dicts and sets cannot be indexed: the first items (a dict keeps insertion order) and the length.
    if length <= FULL_HASH_ITEMS:
        return list(items)
    taken = []
    for item in items:
        taken.append(item)
        if len(taken) >= SAMPLE:
            break
    return taken


__all__ = ["Fingerprint", "describe", "fingerprint", "human_bytes", "light", "still_matches"]
