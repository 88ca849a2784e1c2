"""``NamespaceWatch``: the python tool's hook that sees what each call changes in the namespace.

``before(code)`` takes a copy of the namespace's dict (references to the values, never copies of
them: one C-level copy, so 10 000 names cost next to nothing), fingerprints in full the values
the code can reach without an alias (the names it mentions, and the globals of the functions it
names) and copies those values within the snapshot limit. ``after(token)`` compares: a name
added, deleted or bound to another object is found by identity over the two dicts in one pass; a
watched value that kept its identity is fingerprinted again to see whether it changed in place.
A value changed in place through an alias goes unnoticed. The difference is recorded in the
session's ``NamespaceHistory`` under the step's undo entry, and the line the tool card and the
model read is returned with the changes as JSON for the result's details. A value copied earlier
and unchanged since is not copied again.

No user code runs (see ``fingerprints``): a watched object that cannot be looked into without
running its own code is compared by identity only, and the line says so.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from dataclasses import dataclass
from itertools import compress
from operator import is_not
from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Callable, Container, Mapping

from pydantic import BaseModel

from jupyter_agent.features.kernel_state.copies import DEFAULT_LIMIT_MB, Kept, NotKept, keep_copy
from jupyter_agent.features.kernel_state.diff import Entry, NamespaceChange, NamespaceState, changes_line, describe_change
from jupyter_agent.features.kernel_state.fingerprints import PLAIN_TYPES, Fingerprint, fingerprint, type_name
from jupyter_agent.features.kernel_state.undo_store import NamespaceHistory
from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.loop.types import ToolReturn
from jupyter_agent.tools.python_tool import CodeWatch, watching

if TYPE_CHECKING:
    from jupyter_agent.features.feature import KernelShell, TurnSession

# IPython's own names: output history (_, __, _5), input history (_i, _ii5), and dunder names.
_IPYTHON_NAME = re.compile(r"^(_+|_i+|_i?\d+|_[dio]h|__.*)$")
_MISSING = object()


@dataclass
class WatchToken:
    before: dict[str, object]  # the namespace as the call found it: names and values (references)
    prints: dict[str, Fingerprint]  # the watched names' full fingerprints
    watched: set[str]  # names fingerprinted in full (the rest are compared by identity)
    kept: dict[str, Kept | NotKept]


class NamespaceWatch:
    def __init__(
        self,
        namespace: Mapping[str, object],
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

    def is_user_name(self, name: object) -> bool:
        """A variable of the user's: a string key, not hidden, not one of IPython's history names."""
        return type(name) is str and name not in self.hidden and not (name[:1] == "_" and _IPYTHON_NAME.match(name))

    def state(self, watched: Container[str], full: Callable[[str, object], bool] | None = None) -> NamespaceState:
        """The user's variables: ``watched`` ones (or those ``full`` picks) fingerprinted in full."""
        state: NamespaceState = {}
        for name, value in list(self.namespace.items()):
            if not self.is_user_name(name):
                continue
            if type(value) in PLAIN_TYPES or not (name in watched or (full is not None and full(name, value))):
                state[name] = Entry(value, Fingerprint(id(value), type_name(type(value))))
            else:
                state[name] = Entry(value, fingerprint(value))
        return state

    def before(self, code: str) -> WatchToken:
        before = dict(self.namespace)  # a C-level copy of references: the cost of 10 000 names is a memcpy
        watched = {name for name in reachable_names(code, before, self.transform) if name in before and self.is_user_name(name)}
        prints: dict[str, Fingerprint] = {}
        kept: dict[str, Kept | NotKept] = {}
        for name in watched:
            value = before[name]
            if type(value) in PLAIN_TYPES:
                continue
            print_ = prints[name] = fingerprint(value)
            if print_.digest is None and print_.shape is None:
                continue  # immutable or opaque: nothing a copy could restore
            cached = self._copies.get(name)
            if cached is not None and cached[0].identity == print_.identity and cached[0].same_content(print_):
                kept[name] = cached[1]
                continue
            kept[name] = keep_copy(value, print_, self.limit_bytes)
            self._copies[name] = (print_, kept[name])
        return WatchToken(before, prints, watched, kept)

    def after(self, token: WatchToken) -> tuple[str, list[dict[str, str]]]:
        before, after = token.before, dict(self.namespace)
        moved, deleted = _moved(before, after)
        mutated = []
        for name in token.watched:
            old = token.prints.get(name)
            if old is not None and name in after and after[name] is before[name]:
                if not fingerprint(after[name]).same_content(old):
                    mutated.append(name)
        for name in list(self._copies):
            if name not in after:
                del self._copies[name]
        opaque = [name for name, print_ in token.prints.items() if print_.opaque]
        if len(opaque) > 1:
            keys = list(before)
            opaque.sort(key=keys.index)
        changes, old_state, new_state = self._changes(token, after, moved, deleted, mutated)
        if not changes and not opaque:
            return "", []
        line = changes_line(changes, opaque)
        if changes:
            try:
                seq, step = self.undo_entry()
                self.history.record(seq, step, old_state, new_state, changes, token.kept)
            except OSError as error:  # the undo manifest could not be written: the diff is still true
                line += f" (not undoable: {error})"
        return line, [change.to_json() for change in changes]

    def _changes(
        self, token: WatchToken, after: dict[str, object], moved: list[str], deleted: set[str], mutated: list[str]
    ) -> tuple[list[NamespaceChange], NamespaceState, NamespaceState]:
        """The changes in the order a reader expects (added, then changed in namespace order, then
        deleted), and the entries of the names they concern, before and after."""
        before = token.before
        user = self.is_user_name
        old_state: NamespaceState = {}
        new_state: NamespaceState = {}
        added: list[NamespaceChange] = []
        changed: list[NamespaceChange] = []
        for name in moved:
            if not user(name):
                continue
            new = new_state[name] = Entry(after[name], fingerprint(after[name]))  # a new value is described in full
            if name not in before:
                added.append(describe_change(name, "added", None, new))
                continue
            old = old_state[name] = Entry(before[name], token.prints.get(name) or _light(before[name]))
            changed.append(describe_change(name, "rebound", old, new))
        for name in mutated:
            old = old_state[name] = Entry(before[name], token.prints[name])
            new = new_state[name] = Entry(after[name], fingerprint(after[name]))
            changed.append(describe_change(name, "mutated", old, new))
        if len(changed) > 1:  # in namespace order; only these few names are looked up in it
            keys = list(after)
            changed.sort(key=lambda change: keys.index(change.name))
        gone = [name for name in before if name in deleted and user(name)] if deleted else []
        for name in gone:
            old_state[name] = Entry(before[name], token.prints.get(name) or _light(before[name]))
        removed = [describe_change(name, "deleted", old_state[name], None) for name in gone]
        return added + changed + removed, old_state, new_state


def _moved(before: dict[str, object], after: dict[str, object]) -> tuple[list[str], set[str]]:
    """(names added or bound to another object, in namespace order; names deleted).

    The common case, the same names in the same order with new ones after them, is compared at C
    speed (the key lists, then the values by identity); anything else in one Python pass.
    """
    keys_before, keys_after = list(before), list(after)
    count = len(keys_before)
    if keys_after[:count] == keys_before:
        rebound = list(compress(keys_before, map(is_not, before.values(), after.values())))
        return rebound + keys_after[count:], set()
    moved = [name for name, value in after.items() if before.get(name, _MISSING) is not value]
    return moved, set(before.keys() - after.keys())


def _light(value: object) -> Fingerprint:
    return Fingerprint(id(value), type_name(type(value)))


def reachable_names(code: str, namespace: Mapping[str, object], transform: Callable[[str], str] | None = None) -> set[str]:
    """The names the code mentions, and the globals of the functions it names (two levels deep):
    the values it can change in place without an alias. These are fingerprinted in full."""
    names = named_in(code, transform)
    frontier = set(names)
    for _ in range(2):
        found: set[str] = set()
        for name in frontier:
            function = namespace.get(name)
            # type(), not isinstance(): an object's __class__ may be a property of its own.
            code_object = function.__code__ if type(function) is FunctionType else None
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
    shell: KernelShell | None, session: TurnSession, current_step: Callable[[], int], limit_mb: float = DEFAULT_LIMIT_MB
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


def watched(tool: AgentTool, watch: CodeWatch) -> AgentTool:
    """``tool`` (the python tool) with each call seen by ``watch``: the tool itself ends the result
    with the line of what changed and puts the changes into its details (``python_tool.watching``),
    under the data policy like the rest of its output."""
    run = tool.execute

    async def execute(args: BaseModel, signal: AbortSignal) -> ToolReturn:
        with watching(watch):
            outcome = run(args, signal)
            return await outcome if inspect.isawaitable(outcome) else outcome

    return dataclasses.replace(tool, execute=execute)


__all__ = ["CodeWatch", "NamespaceWatch", "WatchToken", "named_in", "reachable_names", "session_watch", "watched"]
