"""The in-memory index of a session file: every record by id and the active branch.

The active branch is the path from the newest record back through parent ids. It is kept
incrementally, so an append costs O(1): the history, the model's view (compactions applied) and
the usage totals are extended rather than recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.messages import Message, UserMessage
from jupyter_agent.session.records import (
    CompactionRecord,
    LabelRecord,
    MessageRecord,
    Record,
    RequestRecord,
    UsageRecord,
)


@dataclass
class SessionUsage:
    """Totals over the usage records of a branch (field names as in the runtime's ``RunUsage``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    spend_usd: float = 0.0
    steps: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def cost_usd(self) -> float:
        return self.spend_usd

    def add(self, record: UsageRecord) -> None:
        self.input_tokens += record.input_tokens
        self.output_tokens += record.output_tokens
        self.cache_read_tokens += record.cache_read_tokens
        self.cache_write_tokens += record.cache_write_tokens
        self.spend_usd += record.spend_usd
        if record.purpose == "step":
            self.steps += 1


class ActiveBranch:
    """One branch, root to tip: its records, full history, model view, usage and labels."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.position: dict[str, int] = {}
        self.history: list[Message] = []
        self.view: list[tuple[str, Message]] = []  # (record id, message) as the model sees it
        self.usage = SessionUsage()
        self.model: str | None = None
        self.labels: dict[str, str] = {}  # label -> record id
        self.problems: list[str] = []

    @property
    def tip(self) -> str | None:
        return self.records[-1].id if self.records else None

    def extend(self, record: Record) -> None:
        self.position[record.id] = len(self.records)
        self.records.append(record)
        if isinstance(record, MessageRecord):
            self.history.append(record.message)
            self.view.append((record.id, record.message))
            if record.message.role == "assistant" and record.message.model:
                self.model = record.message.model
        elif isinstance(record, CompactionRecord):
            self._compact(record)
        elif isinstance(record, UsageRecord):
            self.usage.add(record)
            self.model = record.model or self.model
        elif isinstance(record, RequestRecord):
            self.model = record.model
        elif isinstance(record, LabelRecord):
            self.labels[record.label] = record.target_id

    def _compact(self, record: CompactionRecord) -> None:
        # The runtime's view after compaction: first user message, the summary, the kept tail.
        kept = next((i for i in range(len(self.view) - 1, -1, -1) if self.view[i][0] == record.first_kept_id), None)
        if kept is None:
            start = self.position.get(record.first_kept_id)
            if start is None:
                self.problems.append(f"compaction {record.id} keeps unknown record {record.first_kept_id}: ignored")
                return
            kept = next((i for i, (rid, _) in enumerate(self.view) if self.position[rid] >= start), len(self.view))
        # The runtime's head: everything up to and including the first user message.
        head_end = next((i + 1 for i, (_, m) in enumerate(self.view) if isinstance(m, UserMessage)), 0)
        summary = record.message or UserMessage(content=record.summary, timestamp=record.ts)
        self.view = self.view[: min(head_end, kept)] + [(record.id, summary)] + self.view[kept:]


class SessionIndex:
    """All records of one file by id, in file order, and the branch ending at the newest one."""

    def __init__(self, records: list[Record]):
        self.by_id: dict[str, Record] = {}
        self.order: dict[str, int] = {}
        self.in_file: list[Record] = []
        self.broken_links: list[str] = []
        for record in records:
            self._remember(record)
        self.branch = self._branch_to(self.in_file[-1].id if self.in_file else None)

    def add(self, record: Record) -> None:
        self._remember(record)
        if record.parent_id == self.branch.tip:
            self.branch.extend(record)
        else:
            self.branch = self._branch_to(record.id)

    def path_to(self, record_id: str) -> list[Record]:
        """Root-to-``record_id`` records; a parent lost to a corrupt line is bridged by file order."""
        path: list[Record] = []
        seen: set[str] = set()
        current: Record | None = self.by_id.get(record_id)
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

    def _remember(self, record: Record) -> None:
        self.by_id[record.id] = record
        self.order[record.id] = len(self.in_file)
        self.in_file.append(record)

    def _branch_to(self, record_id: str | None) -> ActiveBranch:
        branch = ActiveBranch()
        if record_id is not None:
            for record in self.path_to(record_id):
                branch.extend(record)
        return branch


__all__ = ["ActiveBranch", "SessionIndex", "SessionUsage"]
