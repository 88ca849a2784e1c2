"""What a traceback of agent-run code shows: its code named apart from the user's cells, and no
frame of jupyter-agent's own code.

IPython names a cell's code after its execution count (a traceback's ``Cell In[7], line 2``). The
tool runs code with ``store_history=False``, which leaves the count alone, so IPython would name
it after the count the user's *next* cell gets: a traceback of agent-run code would point at a cell
that does not exist yet, and later at one of the user's. Agent-run code is named ``Agent code #N``
instead (N counts the shell's python calls), in the call's own traceback and in any later one
that passes through it (a function the agent defined, called from a user's cell).

Done through the shell's caching compiler (IPython's ``CachingCompiler``, ipykernel's subclass):
its ``cache`` names code as it is compiled and its ``format_code_name`` is what tracebacks ask. A
shell without them (not IPython) runs the code as it did.

A frame of this package (the python tool's stand-in for ``sys.stdout`` refusing bytes, say) is
machinery the user did not write and cannot change, shown with the path of the install: it is left
out, and the traceback says so.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LABEL = "Agent code"


class _AgentCodeNames:
    """Wraps one compiler's ``cache`` and ``format_code_name`` (instance attributes, once)."""

    def __init__(self, compiler: Any) -> None:
        self._cache = compiler.cache
        self._format = compiler.format_code_name
        self.names: dict[str, int] = {}  # compiled name -> number of the python call that compiled it
        self.calls = 0
        # The thread of the python call in progress: a user's cell may compile on a subshell's meanwhile.
        self.running: int | None = None
        compiler.cache = self.cache
        compiler.format_code_name = self.format_code_name

    def cache(self, transformed_code: str, number: int = 0, raw_code: str | None = None) -> str:
        name: str = self._cache(transformed_code, number, raw_code)
        if self.running == threading.get_ident():
            self.names[name] = self.calls
        else:
            self.names.pop(name, None)  # the user ran the same text in a cell: it is that cell's now
        return name

    def format_code_name(self, name: str) -> tuple[str, str] | None:
        if name in self.names:
            return LABEL, f"#{self.names[name]}"
        result: tuple[str, str] | None = self._format(name)
        return result


_BY_COMPILER: weakref.WeakKeyDictionary[Any, _AgentCodeNames] = weakref.WeakKeyDictionary()
_INSTALL = threading.Lock()


@contextmanager
def named_as_agent_code(shell: Any) -> Iterator[None]:
    """Code ``shell`` compiles on this thread inside the block is named ``Agent code #N``."""
    compiler = getattr(shell, "compile", None)
    if not callable(getattr(compiler, "cache", None)) or not callable(getattr(compiler, "format_code_name", None)):
        yield
        return
    with _INSTALL:
        names = _BY_COMPILER.get(compiler)
        if names is None:
            names = _BY_COMPILER[compiler] = _AgentCodeNames(compiler)
    names.calls += 1
    previous, names.running = names.running, threading.get_ident()
    try:
        yield
    finally:
        names.running = previous


_PACKAGE = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def without_own_frames(entries: list[str]) -> list[str]:
    """IPython's traceback entries (``stb``, ANSI stripped) without the frames of this package.

    IPython gives one entry per frame, each starting ``File PATH:LINE, in NAME``; a run of left-out
    frames becomes one line saying how many.
    """
    kept: list[str] = []
    left_out = 0
    for entry in [*entries, ""]:
        if _is_own_frame(entry):
            left_out += 1
            continue
        if left_out:
            kept.append(f"({left_out} frame{'s' if left_out > 1 else ''} of jupyter-agent left out)\n")
            left_out = 0
        kept.append(entry)
    return kept[:-1]


def _is_own_frame(entry: str) -> bool:
    first = entry.lstrip("\n").split("\n", 1)[0]
    if not first.startswith("File "):
        return False
    path = first[len("File ") :].split(", in ", 1)[0].rsplit(":", 1)[0]
    try:
        where = os.path.realpath(os.path.expanduser(path))
    except (OSError, ValueError):
        return False
    return where.startswith(_PACKAGE + os.sep)


__all__ = ["LABEL", "named_as_agent_code", "without_own_frames"]
