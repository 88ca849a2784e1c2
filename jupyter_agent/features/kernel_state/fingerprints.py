"""Cheap fingerprints of namespace values: enough to tell rebound, mutated and unchanged apart.

A fingerprint never copies data. It is the value's identity and type, plus for the mutable
values people keep in notebooks a shape and a hash: the whole content when it is small, a fixed
sample of positions when it is big (so a change outside the sample can go unnoticed, by design).

It runs no user code, with the same static lookups as the read-only tools (``tools/objects``):
types are told by ``type()`` and ``issubclass`` (``isinstance`` reads ``__class__``, which a class
may define), type names and modules through ``type``'s own descriptors (a metaclass may define
them), only exact builtin containers are looked into (a subclass's ``__len__`` or ``__iter__`` is
user code), numpy and pandas objects only when their class is the library's, and items of object
arrays by identity (their ``repr`` is user code). Every other object gets identity and type only,
marked ``opaque``: the diff compares it by identity and says so.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any, Iterable, NamedTuple, TypeGuard, TypeVar

SAMPLE = 64  # positions read from a big array, column or container
FULL_HASH_BYTES = 64 * 1024  # arrays this small are hashed whole
FULL_HASH_ITEMS = 4096  # containers this small are hashed whole (by the identities of their items)
MAX_SAMPLED_COLUMNS = 64
_T = TypeVar("_T")
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range, frozenset)
_CODE = (FunctionType, BuiltinFunctionType, MethodType, type, ModuleType)
PLAIN_TYPES = frozenset((*_IMMUTABLE, FunctionType, ModuleType))  # the common case, by exact type
CONTAINERS = (list, tuple, dict, set, bytearray)  # looked into only when the type is exactly one of them
LIBRARIES = ("numpy", "pandas", "polars")
# A class's own name and module, read through ``type``'s descriptors: a metaclass may define
# ``__name__`` or ``__module__`` as properties, which ``cls.__name__`` would run.
type_name = type.__dict__["__name__"].__get__
type_module = type.__dict__["__module__"].__get__


class Fingerprint(NamedTuple):
    # A tuple: hundreds are made around every python call, and a tuple is the cheapest record.
    identity: int
    kind: str  # the type's name: "DataFrame", "ndarray", "list", …
    shape: tuple[int, ...] | None = None  # rows × columns, an array's shape, or (len,)
    columns: tuple[str, ...] | None = None  # a frame's column names
    digest: str | None = None  # content hash (whole or sampled); None when not looked at
    nbytes: int | None = None  # the data's size when known without walking it
    opaque: bool = False  # not looked at because looking would run the object's own code

    def same_content(self, other: Fingerprint) -> bool:
        return (self.kind, self.shape, self.columns, self.digest) == (other.kind, other.shape, other.columns, other.digest)


def library_of(cls: type) -> str:
    """The top package of the module that defines ``cls`` ("" when it is not a string)."""
    module = type_module(cls)
    return module.split(".")[0] if type(module) is str else ""


def fingerprint(value: object) -> Fingerprint:
    cls = type(value)
    kind = type_name(cls)
    if cls in PLAIN_TYPES:
        return Fingerprint(id(value), kind)
    if _is_container(value, cls):
        return _container(value, kind)
    if issubclass(cls, (*_IMMUTABLE, tuple)) or issubclass(cls, _CODE):
        return Fingerprint(id(value), kind)  # a subclass of an immutable (a namedtuple), a class, a function
    library = library_of(cls)
    if library in LIBRARIES:
        try:
            found = _library_value(value, cls, kind, library)
        except Exception:  # noqa: BLE001 - a value the library cannot describe is compared by identity
            found = None
        if found is not None:
            return found
    return Fingerprint(id(value), kind, opaque=True)


def _library_value(value: Any, cls: type, kind: str, library: str) -> Fingerprint | None:
    if library == "numpy":
        numpy = sys.modules.get("numpy")
        return _array(value, kind) if numpy is not None and issubclass(cls, numpy.ndarray) else None
    if library == "pandas":
        pandas = sys.modules.get("pandas")
        if pandas is not None and issubclass(cls, pandas.DataFrame):
            return _frame(value, kind)
        if pandas is not None and issubclass(cls, pandas.Series):
            return _series(value, kind)
        return None
    polars = sys.modules.get("polars")
    if polars is not None and issubclass(cls, polars.DataFrame):
        columns = tuple(_label(column) for column in value.columns)
        return Fingerprint(id(value), kind, tuple(value.shape), columns, None, value.estimated_size())
    return None


def light(value: object) -> Fingerprint:
    """Identity and type only: for values the code could not have changed in place (see ``watch``)."""
    return Fingerprint(id(value), type_name(type(value)))


def still_matches(value: object, print_: Fingerprint) -> bool:
    """Whether ``value`` still matches ``print_``, at the detail the print was taken with."""
    if id(value) != print_.identity:
        return False
    if print_.digest is None and print_.shape is None:
        return True  # an identity-only print: the same object is all it can tell
    return fingerprint(value).same_content(print_)


def describe(value: object, print_: Fingerprint | None = None) -> str:
    """A short label: "DataFrame 1200×8", "ndarray (3, 4) float64", "list of 3", "int"."""
    print_ = print_ or fingerprint(value)
    kind, shape = print_.kind, print_.shape
    if shape is None:
        return kind
    if print_.columns is not None and len(shape) == 2:
        return f"{kind} {shape[0]}×{shape[1]}"
    if kind in ("ndarray", "Series"):
        dtype = getattr(value, "dtype", "") if library_of(type(value)) in LIBRARIES else ""
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
        digest.update(_items_digest(_sample_flat(array).tolist()))
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
    columns = tuple(_label(column) for column in frame.columns)
    digest = hashlib.blake2b(repr(frame.index.dtype).encode(), digest_size=16)
    nbytes = 0
    positions = _positions(rows)
    # Blocks hold the columns' data (one 2-D array per dtype): sampled there, no column is materialized.
    blocks = list(frame._mgr.blocks)[:MAX_SAMPLED_COLUMNS]
    for block in blocks:
        values = block.values
        digest.update(repr(block.mgr_locs.as_array.tolist()).encode())
        if library_of(type(values)) not in LIBRARIES:
            digest.update(str(id(values)).encode())  # an extension array of the user's own: by identity
            continue
        nbytes += int(getattr(values, "nbytes", 0) or 0)
        sampled = values[..., positions] if getattr(values, "ndim", 1) == 2 else values.take(positions)
        digest.update(_bytes_of(sampled))
    digest.update(_bytes_of(frame.index[positions] if rows else ()))
    return Fingerprint(id(frame), kind, (rows, width), columns, digest.hexdigest(), nbytes)


def _series(series: Any, kind: str) -> Fingerprint:
    length = len(series)
    positions = _positions(length)
    values = series.array
    name = series.name
    digest = hashlib.blake2b(f"{series.dtype}|{_label(name)}".encode(), digest_size=16)
    if library_of(type(values)) not in LIBRARIES:
        digest.update(str(id(values)).encode())  # an extension array of the user's own: by identity
    else:
        digest.update(_bytes_of(values.take(positions) if length else ()))
    return Fingerprint(id(series), kind, (length,), None, digest.hexdigest(), int(getattr(values, "nbytes", 0) or 0))


def _label(label: object) -> str:
    """A column (or series) name as text without running its ``__str__``: plain values as themselves."""
    cls = type(label)
    if isinstance(label, str) and cls is str:
        return label
    if cls in (int, float, bool, type(None)) or library_of(cls) == "numpy":
        return str(label)
    return f"<{type_name(cls)} {id(label):x}>"


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
        return _items_digest(array.ravel().tolist())
    except Exception:  # noqa: BLE001 - an exotic extension array: its length is all that is told
        return str(_length(sampled)).encode()


def _items_digest(items: list[object]) -> bytes:
    """Object items as bytes to hash: plain values (exactly ``str``, ``int``…) by value, whose
    ``repr`` is the builtin's; any other object by identity, as its ``repr`` is user code. By value
    because a string column made of Arrow data (pandas' default string dtype) hands out new
    ``str`` objects on every read: by identity, an unchanged frame would look changed each time."""
    return repr([item if type(item) in _IMMUTABLE else id(item) for item in items]).encode()


def _length(sampled: Any) -> int:
    try:
        return len(sampled) if library_of(type(sampled)) in LIBRARIES or type(sampled) in CONTAINERS else -1
    except Exception:  # noqa: BLE001
        return -1


_Container = list[object] | tuple[object, ...] | dict[object, object] | set[object] | bytearray


def _is_container(value: object, cls: type) -> TypeGuard[_Container]:
    """``cls`` (the exact type of ``value``) is one of ``CONTAINERS``."""
    return cls in CONTAINERS


def _container(value: _Container, kind: str) -> Fingerprint:
    """An exact list, tuple, dict, set or bytearray: its items by identity (their own code never runs)."""
    length = len(value)
    if isinstance(value, bytearray):
        data = bytes(value) if length <= FULL_HASH_BYTES else bytes(value[:: max(1, length // SAMPLE)])
        return Fingerprint(id(value), kind, (length,), None, hashlib.blake2b(data, digest_size=16).hexdigest(), length)
    identities: list[int] | list[tuple[int, int]]
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


def _take(items: Iterable[_T], length: int) -> list[_T]:
    # Dicts and sets cannot be indexed: the first items (a dict keeps insertion order) and the length.
    if length <= FULL_HASH_ITEMS:
        return list(items)
    taken = []
    for item in items:
        taken.append(item)
        if len(taken) >= SAMPLE:
            break
    return taken


__all__ = [
    "CONTAINERS",
    "LIBRARIES",
    "Fingerprint",
    "describe",
    "fingerprint",
    "human_bytes",
    "library_of",
    "light",
    "still_matches",
    "type_module",
    "type_name",
]
