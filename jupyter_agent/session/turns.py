"""The turns of a branch: each starts at its request record and runs until the next one.

The runtime writes one request record before every turn's prompt, so a branch reads as a
sequence of turns: which cell each came from (``RequestRecord.cell``), what it asked, the
messages it added. Re-running a cell (``session/cells.py``), replay and ``%agent sessions``
read a branch this way.
"""

from __future__ import annotations

from collections.abc import Iterable
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
    turns: list[TurnSpan] = []
    for record in records:
        if isinstance(record, RequestRecord):
            turns.append(TurnSpan(len(turns), record))
        elif turns:
            turns[-1].records.append(record)
    return turns


__all__ = ["TurnSpan", "message_text", "turn_spans"]
