"""The in-memory index of a session file: every record by id and the active branch.

The active branch is the path from the newest record back through parent ids. It is kept
incrementally, so an append costs O(1): the history, the model's view (compactions applied) and
the usage totals are extended rather than recomputed.

The index holds an ``Entry`` per record: what the branch needs to know of it (its kind, its ids,
its usage or model) and, once read, the record itself. A session whose file has an index
(``index_file``) is loaded from the entries alone; the messages are read when asked for, the
model's view first (what the next request needs), the rest of the history only when someone
wants it (``Reader``).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from jupyter_agent.messages import Message, ToolResultMessage, UserMessage
from jupyter_agent.runtime.spend import UsageTotal
from jupyter_agent.session.records import CompactionRecord, LabelRecord, MessageRecord, Record, RequestRecord, UsageRecord
from jupyter_agent.session.turns import TurnIndex, TurnSpan

# Reads the records of entries whose record is not in memory yet (``Entry.record``), in one go.
Reader = Callable[[Sequence["Entry"]], None]


@dataclass
class SessionUsage(UsageTotal):
    """Totals over the usage records of a branch, and how many of them were agent steps."""

    steps: int = 0

    @property
    def cost_usd(self) -> float:
        return self.spend_usd

    def count(self, record: UsageRecord) -> None:
        self.add(record)
        if record.purpose == "step":
            self.steps += 1


@dataclass(slots=True)
class Entry:
    """One record of a session file: what the index knows of it, and the record once read.

    ``role`` and ``model`` are a message's role and an assistant's (or a usage or request record's)
    model; ``target`` is a compaction's first kept record or a label's record; ``label`` a label's
    name; ``usage`` a usage record's numbers (the record itself, or one made from the index);
    ``start``/``end`` its line's bytes in the file (-1 for a record not written yet) and ``crc``
    the CRC-32 of the file up to ``end``, once known.
    """

    kind: str
    id: str
    parent_id: str | None
    ts: int
    start: int = -1
    end: int = -1
    crc: int = -1
    role: str | None = None
    model: str | None = None
    target: str | None = None
    label: str | None = None
    usage: UsageRecord | None = None
    record: Record | None = None

    @classmethod
    def of(cls, record: Record, start: int = -1, end: int = -1) -> Entry:
        """The entry of a record in memory (just read or just written)."""
        entry = cls(record.kind, record.id, record.parent_id, record.ts, start=start, end=end, record=record)
        if isinstance(record, MessageRecord):
            entry.role = record.message.role
            entry.model = getattr(record.message, "model", None) or None
        elif isinstance(record, UsageRecord):
            entry.model = record.model
            entry.usage = record
        elif isinstance(record, RequestRecord):
            entry.model = record.model
        elif isinstance(record, CompactionRecord):
            entry.target = record.first_kept_id
        elif isinstance(record, LabelRecord):
            entry.target = record.target_id
            entry.label = record.label
        return entry

    @property
    def message(self) -> Message:
        """A message record's message (it must have been read)."""
        assert isinstance(self.record, MessageRecord), f"record {self.id} is not read"
        return self.record.message

    def __repr__(self) -> str:
        return f"Entry({self.kind!r}, {self.id!r}, parent={self.parent_id!r}, read={self.record is not None})"


class ActiveBranch:
    """One branch, root to tip: its records, full history, model view, usage and labels.

    The view is two aligned lists, record ids and messages (``None`` where a message is not read
    yet), so handing out the next request's messages copies a list instead of walking one.
    """

    def __init__(self, read: Reader) -> None:
        self._read = read
        self.records: list[Entry] = []
        self.position: dict[str, int] = {}
        self.history: list[Entry] = []  # the message records, summarized ones included
        self.view_ids: list[str] = []  # the model's view: the record id of each message
        self.view: list[Message | None] = []
        self._view_roles: list[str] = []
        self._view_entries: dict[int, Entry] = {}  # view positions whose message is not read yet
        self.usage = SessionUsage()
        self.model: str | None = None
        self.labels: dict[str, str] = {}  # label -> record id
        self.problems: list[str] = []
        self.compacted = False  # a compaction record is on it: its view is no prefix of the history
        self._turns = TurnIndex()  # kept up to date when asked for (``turns``)
        self._tool_results: dict[str, list[int]] = {}  # tool name -> history positions of its results
        self._tools_indexed = 0  # how many history entries ``_tool_results`` covers

    @property
    def tip(self) -> str | None:
        return self.records[-1].id if self.records else None

    def prefix(self, length: int) -> ActiveBranch:
        """The branch of this one's first ``length`` records, as ``extend`` would build it, cut
        from this one's lists (a cell run again in a 20 000-message session branches just before
        its turn: ~0.1 s of ``extend`` calls saved). Only for a branch without compactions."""
        assert not self.compacted, "a compacted branch's view is not cut from its history"
        branch = ActiveBranch(self._read)
        records = self.records[:length]
        branch.records = records
        branch.position = {entry.id: index for index, entry in enumerate(records)}
        kept = bisect.bisect_left(self.history, length, key=lambda entry: self.position[entry.id])
        branch.history = self.history[:kept]
        branch.view_ids = self.view_ids[:kept]
        branch.view = self.view[:kept]
        branch._view_roles = self._view_roles[:kept]
        branch._view_entries = {position: entry for position, entry in self._view_entries.items() if position < kept}
        branch._turns = self._turns.cut(length)
        branch._tool_results = {
            name: positions[: bisect.bisect_left(positions, kept)] for name, positions in self._tool_results.items()
        }
        branch._tools_indexed = min(self._tools_indexed, kept)
        for entry in records:
            kind = entry.kind
            if kind == "usage" and entry.usage is not None:
                branch.usage.count(entry.usage)
            elif kind == "label" and entry.label is not None and entry.target is not None:
                branch.labels[entry.label] = entry.target
        branch.model = _last_model(records)
        return branch

    def extend(self, entry: Entry) -> None:
        self.position[entry.id] = len(self.records)
        self.records.append(entry)
        kind = entry.kind
        if kind == "message":
            self.history.append(entry)
            self.view_ids.append(entry.id)
            self._view_roles.append(entry.role or "")
            if entry.record is None:
                self._view_entries[len(self.view)] = entry
                self.view.append(None)
            else:
                self.view.append(entry.message)
            if entry.role == "assistant" and entry.model:
                self.model = entry.model
        elif kind == "compaction":
            self.compacted = True
            self._compact(entry)
        elif kind == "usage":
            if entry.usage is not None:
                self.usage.count(entry.usage)
            self.model = entry.model or self.model
        elif kind == "request":
            self.model = entry.model
        elif kind == "label" and entry.label is not None and entry.target is not None:
            self.labels[entry.label] = entry.target

    def messages(self) -> list[Message]:
        """The model's view, every message read."""
        if self._view_entries:
            self._read(list(self._view_entries.values()))
            for position, entry in self._view_entries.items():
                self.view[position] = entry.message
            self._view_entries = {}
        return list(self.view)  # type: ignore[arg-type]

    def history_messages(self) -> list[Message]:
        return [entry.message for entry in self._read_all(self.history)]

    def tool_results_newest_first(self, tool_name: str) -> Iterator[ToolResultMessage]:
        """The history's results of ``tool_name``, newest first: the results are indexed by tool
        as the branch grows, so finding the last of one tool's walks none of the others."""
        history = self.history
        start = self._tools_indexed
        if start < len(history):
            self._read_all(history[start:])  # here, not while the caller iterates: a stale index is found now
            for position in range(start, len(history)):
                entry = history[position]
                if entry.role == "tool_result":
                    message = entry.message
                    assert isinstance(message, ToolResultMessage)
                    self._tool_results.setdefault(message.tool_name, []).append(position)
            self._tools_indexed = len(history)
        positions = self._tool_results.get(tool_name, [])
        return (history[position].message for position in reversed(positions))  # type: ignore[misc]

    def turns(self) -> list[TurnSpan]:
        """The branch's turns, oldest first (see ``TurnIndex``)."""
        turns = self._turns
        if turns.through < len(self.records):
            added = self._read_all(self.records[turns.through :])
            turns.add([entry.record for entry in added])  # type: ignore[misc]
        return turns.spans()

    def full_records(self) -> list[Record]:
        return [entry.record for entry in self._read_all(self.records)]  # type: ignore[misc]

    def _read_all(self, entries: list[Entry]) -> list[Entry]:
        """``entries``, each record read (those not read yet, in one pass over the file)."""
        unread = [entry for entry in entries if entry.record is None]
        if unread:
            self._read(unread)
        return entries

    def _compact(self, entry: Entry) -> None:
        # The runtime's view after compaction: first user message, the summary, the kept tail.
        if entry.record is None:
            self._read([entry])
        record = entry.record
        assert isinstance(record, CompactionRecord)
        ids = self.view_ids
        kept: int | None = None
        if record.first_kept_id in ids:
            kept = len(ids) - 1 - ids[::-1].index(record.first_kept_id)
        else:
            start = self.position.get(record.first_kept_id)
            if start is None:
                self.problems.append(f"compaction {record.id} keeps unknown record {record.first_kept_id}: ignored")
                return
            kept = next((i for i, rid in enumerate(ids) if self.position[rid] >= start), len(ids))
        # The runtime's head: everything up to and including the first user message.
        head_end = self._view_roles.index("user") + 1 if "user" in self._view_roles else 0
        cut = min(head_end, kept)
        summary = record.message or UserMessage(content=record.summary, timestamp=record.ts)
        unread = {position: self._view_entries[position] for position in self._view_entries if position < cut or position >= kept}
        self.view_ids = ids[:cut] + [record.id] + ids[kept:]
        self.view = self.view[:cut] + [summary] + self.view[kept:]
        self._view_roles = self._view_roles[:cut] + ["user"] + self._view_roles[kept:]
        shift = cut + 1 - kept
        self._view_entries = {position if position < cut else position + shift: e for position, e in unread.items()}


class SessionIndex:
    """All records of one file by id, in file order, and the branch ending at the newest one."""

    def __init__(self, entries: list[Entry], read: Reader):
        self._read = read
        self.by_id: dict[str, Entry] = {}
        self.order: dict[str, int] = {}
        self.in_file: list[Entry] = []
        self.broken_links: list[str] = []
        for entry in entries:
            self._remember(entry)
        self.branch = self._branch_to(self.in_file[-1].id if self.in_file else None)

    def add(self, entry: Entry) -> None:
        self._remember(entry)
        branch = self.branch
        if entry.parent_id == branch.tip:
            branch.extend(entry)
            return
        at = branch.position.get(entry.parent_id) if entry.parent_id is not None else None
        if at is not None and not branch.compacted:
            # A branch from a record of this one (a redo): its records up to there, then this one.
            self.branch = branch.prefix(at + 1)
            self.branch.extend(entry)
        else:
            self.branch = self._branch_to(entry.id)

    def path_to(self, record_id: str) -> list[Entry]:
        """Root-to-``record_id`` entries; a parent lost to a corrupt line is bridged by file order."""
        path: list[Entry] = []
        seen: set[str] = set()
        current: Entry | None = self.by_id.get(record_id)
        while current is not None and current.id not in seen:
            seen.add(current.id)
            path.append(current)
            parent_id = current.parent_id
            if parent_id is None:
                break
            parent = self.by_id.get(parent_id)
            if parent is None:
                position = self.order[current.id]
                parent = self.in_file[position - 1] if position > 0 else None
                if parent is not None:
                    self.broken_links.append(f"record {current.id}: parent {parent_id} missing, linked to {parent.id}")
            current = parent
        path.reverse()
        return path

    def _remember(self, entry: Entry) -> None:
        self.by_id[entry.id] = entry
        self.order[entry.id] = len(self.in_file)
        self.in_file.append(entry)

    def _branch_to(self, record_id: str | None) -> ActiveBranch:
        branch = ActiveBranch(self._read)
        if record_id is None:
            return branch
        in_file = self.in_file
        if in_file[-1].id == record_id and _is_one_line(in_file):
            path = in_file  # the common file: each record follows the one before (no branches, no gaps)
        else:
            path = self.path_to(record_id)
        for entry in path:
            branch.extend(entry)
        return branch


def _last_model(records: list[Entry]) -> str | None:
    """The model ``ActiveBranch.extend`` leaves after ``records``: the last assistant message's, usage
    record's or request record's (a request record's, even none, replaces the one before)."""
    for entry in reversed(records):
        kind = entry.kind
        if kind == "request":
            return entry.model
        if entry.model and ((kind == "message" and entry.role == "assistant") or kind == "usage"):
            return entry.model
    return None


def _is_one_line(entries: list[Entry]) -> bool:
    parents = [entry.parent_id for entry in entries[1:]]
    ids = [entry.id for entry in entries[:-1]]
    return entries[0].parent_id is None and parents == ids


__all__ = ["ActiveBranch", "Entry", "Reader", "SessionIndex", "SessionUsage"]
