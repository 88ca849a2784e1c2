"""``NamespaceWatch``: the python tool's hook that sees what each call changes in the namespace.

``before(code)`` fingerprints every user variable (references, never copies) and copies the
values the code names, within the snapshot limit. Only the values the code can reach without an
alias (the names it mentions, and the globals of the functions it names) get a full fingerprint:
every other variable is compared by identity, which is what keeps a call with hundreds of
variables cheap; a value changed in place through an alias goes unnoticed. ``after(token)`` fingerprints again, records
the difference in the session's ``NamespaceHistory`` under the step's undo entry and returns
the line the tool card and the model read, with the changes as JSON for the result's details.
A value copied earlier and unchanged since is not copied again.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Any, Callable, Container, Mapping

from jupyter_agent.features.kernel_state.copies import DEFAULT_LIMIT_MB, Kept, NotKept, keep_copy
from jupyter_agent.features.kernel_state.diff import Entry, NamespaceState, changes_line, diff_states
from jupyter_agent.features.kernel_state.fingerprints import PLAIN_TYPES, Fingerprint, fingerprint
from jupyter_agent.features.kernel_state.undo_store import NamespaceHistory

# IPython's own names: output history (_, __, _5), input history (_i, _ii5), and dunder names.
_IPYTHON_NAME = re.compile(r"^(_+|_i+|_i?\d+|_[dio]h|__.*)$")


@dataclass
class WatchToken:
    before: NamespaceState
    watched: set[str]  # names fingerprinted in full (the rest: identity and type)
    kept: dict[str, Kept | NotKept]


class NamespaceWatch:
    def __init__(
        self,
        namespace: Mapping[str, Any],
        history: NamespaceHistory,
        undo_entry: Callable[[], tuple[int, int]],
        *,
        hidden: Container[str] = (),
        transform: Callable[[str], str] | None = None,
        limit_mb: float = DEFAULT_LIMIT_MB,
    ) -> None:
        """``undo_entry()``: (seq, step) of the running step's undo entry, made on first use."""
        self.namespace = namespace
        self.history = history
        self.undo_entry = undo_entry
        self.hidden = hidden
        self.transform = transform
        self.limit_bytes = int(limit_mb * 1024 * 1024)
        self._copies: dict[str, tuple[Fingerprint, Kept | NotKept]] = {}

    def state(self, watched: Container[str], full: Callable[[str, Any], bool] | None = None) -> NamespaceState:
        """The user's variables: ``watched`` ones (or those ``full`` picks) fingerprinted in full."""
        hidden, plain = self.hidden, PLAIN_TYPES
        state: NamespaceState = {}
        for name, value in list(self.namespace.items()):
            if name in hidden or not isinstance(name, str) or (name[:1] == "_" and _IPYTHON_NAME.match(name)):
                continue
            cls = type(value)
            if cls in plain or not (name in watched or (full is not None and full(name, value))):
                state[name] = Entry(value, Fingerprint(id(value), cls.__name__))  # inline: this runs 400 times a call
            else:
                state[name] = Entry(value, fingerprint(value))
        return state

    def before(self, code: str) -> WatchToken:
        watched = reachable_names(code, self.namespace, self.transform)
        before = self.state(watched)
        kept: dict[str, Kept | NotKept] = {}
        for name in watched & before.keys():
            entry = before[name]
            if entry.print_.digest is None and entry.print_.shape is None:
                continue  # immutable or opaque: nothing a copy could restore
            cached = self._copies.get(name)
            if cached is not None and cached[0].identity == entry.print_.identity and cached[0].same_content(entry.print_):
                kept[name] = cached[1]
                continue
            kept[name] = keep_copy(entry.value, entry.print_, self.limit_bytes)
            self._copies[name] = (entry.print_, kept[name])
        return WatchToken(before, watched, kept)

    def after(self, token: WatchToken) -> tuple[str, list[dict[str, str]]]:
        before = token.before

        def new_or_rebound(name: str, value: Any) -> bool:
            old = before.get(name)
            return old is None or old.print_.identity != id(value)

        after = self.state(token.watched, new_or_rebound)  # a new value is described in full
        changes = diff_states(before, after)
        for name in list(self._copies):
            if name not in after:
                del self._copies[name]
        if not changes:
            return "", []
        line = changes_line(changes)
        try:
            seq, step = self.undo_entry()
            self.history.record(seq, step, before, after, changes, token.kept)
        except OSError as error:  # the undo manifest could not be written: the diff is still true
            line += f" (not undoable: {error})"
        return line, [change.to_json() for change in changes]


def reachable_names(code: str, namespace: Mapping[str, Any], transform: Callable[[str], str] | None = None) -> set[str]:
    """The names the code mentions, and the globals of the functions it names (two levels deep):
    the values it can change in place without an alias. These are fingerprinted in full."""
    names = named_in(code, transform)
    frontier = set(names)
    for _ in range(2):
        found: set[str] = set()
        for name in frontier:
            function = namespace.get(name)
            code_object = getattr(function, "__code__", None) if isinstance(function, FunctionType) else None
            if code_object is not None:
                found.update(_global_names(code_object))
        frontier = found - names
        names |= found
    return names


def _global_names(code_object: CodeType) -> set[str]:
    names = set(code_object.co_names)
    for constant in code_object.co_consts:  # nested functions and comprehensions
        if isinstance(constant, CodeType):
            names |= _global_names(constant)
    return names


def named_in(code: str, transform: Callable[[str], str] | None = None) -> set[str]:
    """Every plain name the code mentions (loads, stores, ``global``, ``del``)."""
    try:
        source = transform(code) if transform is not None else code
        tree = ast.parse(source)
    except (SyntaxError, ValueError, TypeError, MemoryError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def session_watch(
    shell: Any, session: Any, current_step: Callable[[], int], limit_mb: float = DEFAULT_LIMIT_MB
) -> NamespaceWatch:
    """The watch of ``session``'s python calls in ``shell``: its history lives as long as the kernel."""
    from jupyter_agent.features.kernel_state.undo_store import history_for

    def undo_entry() -> tuple[int, int]:
        step = current_step()
        return session.snapshots.mark(step), step

    return NamespaceWatch(
        shell.user_ns if shell is not None else {},  # no shell: a toolset built only to be listed
        history_for(str(session.path)),
        undo_entry,
        hidden=getattr(shell, "user_ns_hidden", None) or (),
        transform=getattr(shell, "transform_cell", None),
        limit_mb=limit_mb,
    )


__all__ = ["NamespaceWatch", "WatchToken", "named_in", "reachable_names", "session_watch"]
