"""The turns recorded in a session, as replay reads them, and which one a cell replays.

A turn starts at its request record (the runtime writes one before every turn's prompt) and
holds every message up to the next one. A cell replays a recorded turn with the same prompt, and
first one that the cell itself recorded (the cell's identity of ``session/cells.py``: the same
``cellId``, or without one the same position among the kernel's agent cells): two cells asking
the same thing replay each its own calls, in any order. Among those (or, when the cell recorded
none, among all turns with its prompt: an older file, a recording made elsewhere) the first at or
after the session's replay cursor, else the latest one (a prompt edited once and run live replays
from then on); the cursor then moves past it, so a notebook run top to bottom replays its turns in
order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from jupyter_agent.messages import AssistantMessage, JsonObject, Message, ToolResultMessage, UserMessage, without_turn_context
from jupyter_agent.runtime.permissions import was_denied
from jupyter_agent.session.cells import same_cell
from jupyter_agent.session.records import CallSignature, CellRef, MessageRecord

if TYPE_CHECKING:
    from jupyter_agent.session import SessionStore


@dataclass
class RecordedCall:
    id: str
    name: str
    arguments: JsonObject
    result: ToolResultMessage | None  # None: the turn ended before the call had a result
    signature: CallSignature | None = None  # the recording user's, when the call ran (session/trust.py)

    @property
    def denied(self) -> bool:
        """The call was refused by the permission gate when it was recorded (and so did not run)."""
        return self.result is not None and was_denied(self.result)


@dataclass
class RecordedTurn:
    index: int  # position among the session's turns, from 0
    prompt: str
    model: str
    permissions: str
    messages: list[Message] = field(default_factory=list)  # the turn's messages after its prompt
    signatures: dict[str, CallSignature] = field(default_factory=dict)  # call id -> its result's signature
    cell: CellRef | None = None  # the cell it came from (None: no cell, or a file older than cell records)

    @property
    def answers(self) -> list[AssistantMessage]:
        return [message for message in self.messages if isinstance(message, AssistantMessage)]

    @property
    def calls(self) -> list[RecordedCall]:
        results = {m.tool_call_id: m for m in self.messages if isinstance(m, ToolResultMessage)}
        return [
            RecordedCall(c.id, c.name, dict(c.arguments), results.get(c.id), self.signatures.get(c.id))
            for a in self.answers
            for c in a.tool_calls
        ]

    @property
    def answer(self) -> str:
        answers = self.answers
        return answers[-1].text if answers else ""


def prompt_text(content: str | Sequence[object] | None) -> str:
    """What the user wrote (a recorded prompt leads with its turn's context, which a replay ignores)."""
    if isinstance(content, str):
        return without_turn_context(content)
    return without_turn_context("".join(getattr(block, "text", "") for block in content or ()))


def recorded_turns(store: SessionStore) -> list[RecordedTurn]:
    """The turns on the session's active branch, oldest first."""
    turns: list[RecordedTurn] = []
    for span in store.turns():
        options = span.request.options or {}
        current = RecordedTurn(len(turns), "", span.request.model, str(options.get("permissions", "")), cell=span.cell)
        for record in span.records:
            if not isinstance(record, MessageRecord):
                continue
            message = record.message
            if isinstance(message, UserMessage) and not current.prompt and not current.messages:
                current.prompt = prompt_text(message.content)
                continue
            current.messages.append(message)
            if isinstance(message, ToolResultMessage) and record.signature is not None:
                current.signatures[message.tool_call_id] = record.signature
        if current.prompt:
            turns.append(current)
    return turns


class ReplayCursor:
    """Where a session's replays are in its recorded turns (one per session, for the kernel's life)."""

    def __init__(self) -> None:
        self.next_index = 0

    def choose(self, turns: list[RecordedTurn], prompt: str, cell: CellRef | None = None) -> RecordedTurn | None:
        """The turn the cell asking ``prompt`` replays (``cell``: which cell asks; None: unknown)."""
        wanted = _normalized(prompt)
        anywhere = [turn for turn in turns if _normalized(turn.prompt) == wanted]
        own = [turn for turn in anywhere if cell is not None and same_cell(turn.cell, cell)]
        candidates = own or anywhere
        later = [turn for turn in candidates if turn.index >= self.next_index]
        chosen = later[0] if later else candidates[-1] if candidates else None
        if chosen is not None:
            self.next_index = chosen.index + 1
        return chosen

    def expected(self, turns: list[RecordedTurn], cell: CellRef | None = None) -> RecordedTurn | None:
        """The turn the cell would replay had its prompt not changed (to tell an edited prompt from a
        new one): the cell's own latest turn (by ``cellId``; the prompt is what changed), else the
        turn a cell run in order would replay next."""
        if cell is not None and cell.cell_id is not None:
            own = [turn for turn in turns if turn.cell is not None and turn.cell.cell_id == cell.cell_id]
            if own:
                return own[-1]
        return next((turn for turn in turns if turn.index >= self.next_index), None)


def _normalized(prompt: str) -> str:
    return " ".join(prompt.split())


_CURSORS: dict[str, ReplayCursor] = {}


def cursor_for(key: str) -> ReplayCursor:
    return _CURSORS.setdefault(key, ReplayCursor())


def arguments_key(arguments: object) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


__all__ = ["RecordedCall", "RecordedTurn", "ReplayCursor", "arguments_key", "cursor_for", "prompt_text", "recorded_turns"]
