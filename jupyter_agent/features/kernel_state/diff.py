"""What one python call changed in the user's namespace: added, rebound, mutated, deleted names.

``NamespaceState`` is the namespace as fingerprints plus references to the values themselves
(keeping a reference costs nothing and is what lets undo give a rebound name its old object back).
``diff_states`` compares two states; ``changes_line`` is the one line a tool card and the model
read: ``+ df2 (DataFrame 1200×8), ~ df (2 columns added), − tmp``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from jupyter_agent.features.kernel_state.fingerprints import Fingerprint, describe

ChangeKind = Literal["added", "rebound", "mutated", "deleted"]
MARKS: dict[ChangeKind, str] = {"added": "+", "rebound": "~", "mutated": "~", "deleted": "−"}
LINE_NAMES = 12  # names on the card's line; the rest are counted
PREFIX = "Namespace: "


class Entry(NamedTuple):
    # A tuple: one is made per variable, twice per call.
    value: object
    print_: Fingerprint


NamespaceState = dict[str, Entry]


@dataclass(frozen=True)
class NamespaceChange:
    name: str
    kind: ChangeKind
    detail: str  # "DataFrame 1200×8", "2 columns added", "str, was int"; empty for a deletion

    @property
    def text(self) -> str:
        mark = MARKS[self.kind]
        return f"{mark} {self.name} ({self.detail})" if self.detail else f"{mark} {self.name}"

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "text": self.text}


def diff_states(before: NamespaceState, after: NamespaceState) -> list[NamespaceChange]:
    """Added names first, then changed ones, then deleted ones, each in namespace order."""
    added: list[NamespaceChange] = []
    changed: list[NamespaceChange] = []
    for name, new in after.items():
        old = before.get(name)
        if old is None:
            added.append(describe_change(name, "added", None, new))
        elif old.print_.identity != new.print_.identity:
            changed.append(describe_change(name, "rebound", old, new))
        elif not old.print_.same_content(new.print_):
            changed.append(describe_change(name, "mutated", old, new))
    return added + changed + [describe_change(name, "deleted", before[name], None) for name in before if name not in after]


def describe_change(name: str, kind: ChangeKind, old: Entry | None, new: Entry | None) -> NamespaceChange:
    """The change of one name, with what the tool card says about it."""
    if kind == "added" and new is not None:
        return NamespaceChange(name, kind, describe(new.value, new.print_))
    if kind == "rebound" and old is not None and new is not None:
        return NamespaceChange(name, kind, _rebound(old, new))
    if kind == "mutated" and old is not None and new is not None:
        return NamespaceChange(name, kind, mutation(old.print_, new.print_))
    return NamespaceChange(name, kind, "")


def mutation(old: Fingerprint, new: Fingerprint) -> str:
    """What changed inside a value that kept its identity, as far as the fingerprints tell."""
    parts = []
    if old.columns is not None and new.columns is not None and old.columns != new.columns:
        added = [column for column in new.columns if column not in old.columns]
        removed = [column for column in old.columns if column not in new.columns]
        parts += _counted(added, "added") + _counted(removed, "removed")
        if not added and not removed:
            parts.append("columns reordered")
    if old.shape != new.shape and old.shape is not None and new.shape is not None:
        if old.columns is not None and new.columns is not None:
            if old.shape[0] != new.shape[0]:
                parts.append(f"rows {old.shape[0]} → {new.shape[0]}")
        elif len(old.shape) == 1 and len(new.shape) == 1 and old.kind not in ("ndarray",):
            parts.append(f"{old.shape[0]} → {new.shape[0]} items")
        else:
            parts.append(f"shape {old.shape} → {new.shape}")
    return "; ".join(parts) or "values changed"


def _counted(columns: list[str], verb: str) -> list[str]:
    if not columns:
        return []
    return [f"column {columns[0]} {verb}"] if len(columns) == 1 else [f"{len(columns)} columns {verb}"]


def _rebound(old: Entry, new: Entry) -> str:
    label = describe(new.value, new.print_)
    return label if old.print_.kind == new.print_.kind else f"{label}, was {old.print_.kind}"


def changes_line(changes: list[NamespaceChange], opaque: list[str] | tuple[str, ...] = ()) -> str:
    """``Namespace: + a (int), ~ b (int)``; empty when nothing changed and nothing was opaque.

    ``opaque``: names the call used that could only be compared by identity (looking into them
    would run their own code), said so after the changes, since a change inside them is not seen.
    """
    if not changes and not opaque:
        return ""
    shown = ", ".join(change.text for change in changes[:LINE_NAMES])
    more = f", … and {len(changes) - LINE_NAMES} more" if len(changes) > LINE_NAMES else ""
    line = PREFIX + (shown + more if changes else "no change seen")
    if opaque:
        names = ", ".join(opaque[:LINE_NAMES]) + (f" and {len(opaque) - LINE_NAMES} more" if len(opaque) > LINE_NAMES else "")
        line += f"; compared by identity only (reading them would run their own code): {names}"
    return line


__all__ = ["Entry", "NamespaceChange", "NamespaceState", "changes_line", "describe_change", "diff_states", "mutation"]
