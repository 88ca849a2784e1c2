"""Every branch of a session file, the active one and those a re-run cell (or ``branch``) left.

A branch is the path from the root to a record nothing continues (a leaf). The active branch ends
at the newest record; every other leaf ends a branch that left the active one at some record:
its turns after that point are what the re-run replaced, and stay readable here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jupyter_agent.messages import Message
from jupyter_agent.session.branch import ActiveBranch, Entry, SessionIndex
from jupyter_agent.session.records import Record
from jupyter_agent.session.turns import TurnSpan, turn_spans


@dataclass
class BranchInfo:
    """One branch: ``number`` 0 is the active one, the others count from 1, oldest first."""

    number: int
    tip: str  # the id of its last record
    records: list[Record]  # root to tip
    shared: int  # how many of its records it shares with the active branch (its first ones)

    @property
    def active(self) -> bool:
        return self.number == 0

    @property
    def turns(self) -> list[TurnSpan]:
        return turn_spans(self.records)

    @property
    def own_turns(self) -> list[TurnSpan]:
        """The turns not on the active branch (all of them for the active branch itself)."""
        if self.active:
            return self.turns
        shared_ids = {record.id for record in self.records[: self.shared]}
        return [turn for turn in self.turns if turn.start not in shared_ids]

    @property
    def last_activity(self) -> int | None:
        return self.records[-1].ts if self.records else None

    def history(self) -> list[Message]:
        """Every message of the branch, including those a compaction summarized."""
        return self._walk().history_messages()

    def messages(self) -> list[Message]:
        """What a model continuing this branch would get (compactions applied)."""
        return self._walk().messages()

    def _walk(self) -> ActiveBranch:
        branch = ActiveBranch(_in_memory)
        for record in self.records:
            branch.extend(Entry.of(record))
        return branch


def _in_memory(entries: Sequence[Entry]) -> None:
    raise AssertionError(f"a branch's records are read before it is walked, not {entries}")


def list_branches(index: SessionIndex, records_of: Callable[[list[Entry]], list[Record]]) -> list[BranchInfo]:
    """The active branch, then every other branch of the file in the order their tips were written;
    ``records_of`` reads the records of the index's entries."""
    active = index.branch
    if not active.records:
        return []
    parents = {entry.parent_id for entry in index.in_file if entry.parent_id is not None}
    found = [BranchInfo(0, active.tip or "", records_of(list(active.records)), len(active.records))]
    for entry in index.in_file:
        if entry.id in parents or entry.id == active.tip:
            continue
        path = index.path_to(entry.id)
        shared = next((i for i, step in enumerate(path) if step.id not in active.position), len(path))
        found.append(BranchInfo(len(found), entry.id, records_of(path), shared))
    return found


__all__ = ["BranchInfo", "list_branches"]
