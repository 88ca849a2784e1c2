"""The turns of a branch: each starts at its request record and runs until the next one.

The runtime writes one request record before every turn's prompt, so a branch reads as a
sequence of turns: which cell each came from (``RequestRecord.cell``), what it asked, the
messages it added. Re-running a cell (``session/cells.py``), replay and ``%agent sessions``
read a branch this way.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from jupyter_agent.messages import Message, UserMessage, without_turn_context
from jupyter_agent.session.records import CellRef, MessageRecord, Record, RequestRecord


@dataclass
class TurnSpan:
    """One turn on a branch: its request record, then every record up to the next turn's."""

    index: int  # position among the branch's turns, from 0
    request: RequestRecord
    records: list[Record] = field(default_factory=list)  # after the request record, in order

    @property
    def start(self) -> str:
        """The id of the turn's first record (its request record): a redo branches just before it."""
        return self.request.id

    @property
    def cell(self) -> CellRef | None:
        return self.request.cell

    @property
    def messages(self) -> list[Message]:
        return [record.message for record in self.records if isinstance(record, MessageRecord)]

    @property
    def prompt(self) -> str:
        """What the user wrote: the turn's first user message without its turn context."""
        for message in self.messages:
            if isinstance(message, UserMessage):
                return message_text(message)
            break
        return ""

    @property
    def ts(self) -> int:
        return self.request.ts


def message_text(message: UserMessage) -> str:
    """A user message's text without the turn context that leads a prompt."""
    content = message.content
    text = content if isinstance(content, str) else "".join(getattr(block, "text", "") for block in content)
    return without_turn_context(text)


def turn_spans(records: Iterable[Record]) -> list[TurnSpan]:
    """The turns of a branch's records (root first); records before the first request belong to none."""
    turns = TurnIndex()
    turns.add(list(records))
    return turns.spans()


class TurnIndex:
    """The turns of a branch that grows at its tip, kept as its records are added: every turn asks
    for the turns it continues, which for a 20 000-record session is a walk of ~5 ms each time.

    A span handed out never changes: records added to the last turn go to a copy of it.
    """

    def __init__(self) -> None:
        self._spans: list[TurnSpan] = []
        self._starts: list[int] = []  # the position of each turn's request record among the records
        self.through = 0  # how many of the branch's records the spans hold
        self._last_shared = False  # the last span was handed out: the next record goes to a copy

    def add(self, records: Sequence[Record]) -> None:
        """The branch's next records (those after the first ``through``)."""
        spans = self._spans
        for offset, record in enumerate(records):
            if isinstance(record, RequestRecord):
                self._starts.append(self.through + offset)
                spans.append(TurnSpan(len(spans), record))
                self._last_shared = False
            elif spans:
                last = spans[-1]
                if self._last_shared:
                    last = spans[-1] = TurnSpan(last.index, last.request, list(last.records))
                    self._last_shared = False
                last.records.append(record)
        self.through += len(records)

    def spans(self) -> list[TurnSpan]:
        self._last_shared = True
        return list(self._spans)

    def cut(self, length: int) -> TurnIndex:
        """The index of the branch's first ``length`` records (a redo's branch, cut from this one's)."""
        cut = TurnIndex()
        kept = bisect.bisect_left(self._starts, length)
        cut._spans, cut._starts = self._spans[:kept], self._starts[:kept]
        cut.through = min(self.through, length)
        cut._last_shared = self._last_shared = True  # both hold the same spans now
        if kept:
            last = cut._spans[-1]
            within = cut.through - cut._starts[-1] - 1
            if within < len(last.records):
                cut._spans[-1] = TurnSpan(last.index, last.request, last.records[:within])
        return cut


__all__ = ["TurnIndex", "TurnSpan", "message_text", "turn_spans"]
