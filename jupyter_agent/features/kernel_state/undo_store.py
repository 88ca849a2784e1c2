"""The namespace half of ``%agent undo``: per step, each changed name's value before and after.

Steps are keyed by ``seq``, the position of the step in the session's undo history (the file
snapshots' entries), so one ``%agent undo`` restores a step's files and variables together.
Several python calls of one step merge: the first call's "before" and the last call's "after".
Values are kept by reference; a value changed in place is restored from the copy taken before
the step (see ``copies``), or reported as not restorable. Undo refuses, and changes nothing,
when a name no longer holds what the agent left. The history lives as long as the kernel: the
objects it keeps cannot outlive it, and only the latest ``MAX_STEPS`` steps keep them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import MutableMapping

from jupyter_agent.features.kernel_state.copies import Kept, NotKept
from jupyter_agent.features.kernel_state.diff import Entry, NamespaceChange, NamespaceState, diff_states
from jupyter_agent.features.kernel_state.fingerprints import still_matches

MAX_STEPS = 20  # steps whose values stay referenced (older ones cannot be undone in the namespace)
NOT_NAMED = "no copy was taken before the step changed it"


@dataclass
class NameRecord:
    before: Entry | None  # None: the name did not exist before the step
    after: Entry | None  # None: the step deleted it
    kept: Kept | NotKept | None = None  # a copy of ``before.value`` taken before the step


@dataclass
class NamespaceStep:
    seq: int
    step: int
    names: dict[str, NameRecord] = field(default_factory=dict)
    undone: bool = False

    def changes(self) -> list[NamespaceChange]:
        """The step's net change (a name added then deleted within the step shows nothing)."""
        before: NamespaceState = {name: r.before for name, r in self.names.items() if r.before is not None}
        after: NamespaceState = {name: r.after for name, r in self.names.items() if r.after is not None}
        return diff_states(before, after)


@dataclass
class NamespaceUndo:
    seq: int
    restored: list[str] = field(default_factory=list)  # names given their value from before the step
    removed: list[str] = field(default_factory=list)  # names the step added
    not_restored: dict[str, str] = field(default_factory=dict)  # name -> why
    conflicts: dict[str, str] = field(default_factory=dict)  # name -> what the user (or a later step) did

    @property
    def ok(self) -> bool:
        return not self.conflicts


class NamespaceHistory:
    """The namespace changes of one session's steps in this kernel, oldest first."""

    def __init__(self) -> None:
        self.steps: list[NamespaceStep] = []
        self.forgotten: set[int] = set()  # seqs whose values were let go (older than MAX_STEPS)

    def record(
        self,
        seq: int,
        step: int,
        before: NamespaceState,
        after: NamespaceState,
        changes: list[NamespaceChange],
        kept: dict[str, Kept | NotKept],
    ) -> None:
        entry = self.find(seq)
        if entry is None:
            entry = NamespaceStep(seq, step)
            self.steps.append(entry)
            self._forget_old()
        for change in changes:
            record = entry.names.get(change.name)
            if record is None:
                entry.names[change.name] = NameRecord(before.get(change.name), after.get(change.name), kept.get(change.name))
            else:
                record.after = after.get(change.name)

    def find(self, seq: int) -> NamespaceStep | None:
        return next((entry for entry in self.steps if entry.seq == seq), None)

    def pending(self) -> list[NamespaceStep]:
        """Steps with a change not undone, oldest first."""
        return [entry for entry in self.steps if not entry.undone and entry.changes()]

    def undo(self, seq: int, namespace: MutableMapping[str, object], *, dry_run: bool = False) -> NamespaceUndo | None:
        """Restores step ``seq`` in ``namespace``; None when this kernel holds nothing of it.

        ``dry_run``: only the conflicts are computed, nothing changes.
        """
        entry = self.find(seq)
        if entry is None or entry.undone:
            return None
        result = NamespaceUndo(seq)
        for name, record in entry.names.items():
            reason = _conflict(name, record, namespace)
            if reason:
                result.conflicts[name] = reason
        if result.conflicts or dry_run:
            return result
        for name, record in entry.names.items():
            self._restore(name, record, namespace, result)
        entry.undone = True
        return result

    def _restore(self, name: str, record: NameRecord, namespace: MutableMapping[str, object], result: NamespaceUndo) -> None:
        before = record.before
        if before is None:
            namespace.pop(name, None)
            result.removed.append(name)
            return
        if still_matches(before.value, before.print_):
            namespace[name] = before.value  # the old object is intact: given back by reference
            result.restored.append(name)
        elif isinstance(record.kept, Kept):
            namespace[name] = record.kept.value
            result.restored.append(name)
        else:
            result.not_restored[name] = record.kept.reason if isinstance(record.kept, NotKept) else NOT_NAMED

    def _forget_old(self) -> None:
        while len(self.steps) > MAX_STEPS:
            self.forgotten.add(self.steps.pop(0).seq)


def _conflict(name: str, record: NameRecord, namespace: MutableMapping[str, object]) -> str | None:
    after = record.after
    if after is None:
        return "defined again since the agent deleted it" if name in namespace else None
    if name not in namespace:
        return "deleted since the agent's step"
    current = namespace[name]
    if id(current) != after.print_.identity:
        return "assigned again since the agent's step"
    if not still_matches(current, after.print_):
        return "changed since the agent's step"
    return None


_HISTORIES: dict[str, NamespaceHistory] = {}


def history_for(key: str) -> NamespaceHistory:
    """The history of the session whose file is ``key``, for the life of the kernel."""
    return _HISTORIES.setdefault(key, NamespaceHistory())


__all__ = ["MAX_STEPS", "NOT_NAMED", "NameRecord", "NamespaceHistory", "NamespaceStep", "NamespaceUndo", "history_for"]
