"""JSON that gives up the interpreter lock while it works, for one thread and one span of time.

The C parts of the standard ``json`` module (the scanner and the one-shot encoder) hold the
interpreter lock for a whole document. litellm's import parses a 3.4 MB price table and parses
and re-serializes a 1.7 MB tokenizer: three calls of 25–30 ms each on a quiet machine and up to
160 ms in a busy kernel, during which the kernel's main thread cannot answer a cell. The pure
Python scanner and encoder of the same module give the same results and let other threads run
between their bytecodes; they are 3–10 times slower, which a background import can afford.

    with yielding_json():     # in the importing thread
        import litellm

Only the thread that entered the block gets the Python implementation; every other thread keeps
the C one. Outside the block the wrappers (which a module imported meanwhile may have kept with
``from json import loads``) pass straight through to the originals.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from json.scanner import py_make_scanner  # type: ignore[attr-defined]  # not in the stubs
from typing import Any, Callable, Iterator

_original_loads: Callable[..., Any] = json.loads
_original_dumps: Callable[..., str] = json.dumps
_state = threading.local()


class _PythonDecoder(json.JSONDecoder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scan_once = py_make_scanner(self)


class _PythonEncoder(json.JSONEncoder):
    def iterencode(self, o: Any, _one_shot: bool = False) -> Iterator[str]:
        return super().iterencode(o, _one_shot=False)  # never the C one-shot encoder


def _yielding() -> bool:
    return getattr(_state, "active", False)


def _loads(s: Any, *, cls: Any = None, **kwargs: Any) -> Any:
    if cls is None and _yielding():
        cls = _PythonDecoder
    return _original_loads(s, cls=cls, **kwargs)


def _dumps(obj: Any, *, cls: Any = None, **kwargs: Any) -> str:
    if cls is None and _yielding():
        cls = _PythonEncoder
    return _original_dumps(obj, cls=cls, **kwargs)


_lock = threading.Lock()
_users = 0


@contextmanager
def yielding_json() -> Iterator[None]:
    """In this thread, ``json.loads``, ``json.load`` and ``json.dumps`` use the pure-Python implementation."""
    global _users
    with _lock:
        _users += 1
        json.loads, json.dumps = _loads, _dumps  # json.load and json.dump call these module globals
    _state.active = True
    try:
        yield
    finally:
        _state.active = False
        with _lock:
            _users -= 1
            if _users == 0:
                json.loads, json.dumps = _original_loads, _original_dumps


__all__ = ["yielding_json"]
