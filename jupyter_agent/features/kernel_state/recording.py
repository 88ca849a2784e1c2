"""The turns recorded in a session, as replay reads them, and which one a cell replays.

A turn starts at its request record (the runtime writes one before every turn's prompt) and
holds every message up to the next one. A cell replays the first recorded turn at or after the
session's replay cursor with the same prompt, else the latest one anywhere with it (a prompt
edited once and run live replays from then on); the cursor then moves past it, so a notebook
run top to bottom replays its turns in order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.messages import AssistantMessage, ToolResultMessage, UserMessage, without_turn_context


@dataclass
class RecordedCall:
    id: str
    name: str
    arguments: dict[str, Any]
    result: ToolResultMessage | None  # None: the turn ended before the call had a result

    @property
    def denied(self) -> bool:
        """The call was refused by the permission gate when it was recorded (and so did not run)."""
        text = self.result.text if self.result is not None else ""
        return bool(self.result is not None and self.result.is_error and text.startswith("Tool call ") and "was denied" in text)


@dataclass
class RecordedTurn:
    index: int  # position among the session's turns, from 0
    prompt: str
    model: str
    permissions: str
    messages: list[Any] = field(default_factory=list)  # the turn's messages after its prompt

    @property
    def answers(self) -> list[AssistantMessage]:
        return [message for message in self.messages if isinstance(message, AssistantMessage)]

    @property
    def calls(self) -> list[RecordedCall]:
        results = {m.tool_call_id: m for m in self.messages if isinstance(m, ToolResultMessage)}
        return [RecordedCall(c.id, c.name, dict(c.arguments), results.get(c.id)) for a in self.answers for c in a.tool_calls]

    @property
    def answer(self) -> str:
        answers = self.answers
        return answers[-1].text if answers else ""


def prompt_text(content: Any) -> str:
    """What the user wrote (a recorded prompt leads with its turn's context, which a replay ignores)."""
    if isinstance(content, str):
        return without_turn_context(content)
    return without_turn_context("".join(getattr(block, "text", "") for block in content or ()))


def recorded_turns(store: Any) -> list[RecordedTurn]:
    """The turns on the session's active branch, oldest first."""
    turns: list[RecordedTurn] = []
    current: RecordedTurn | None = None
    for record in store.records():
        if record.kind == "request":
            options = record.options or {}
            current = RecordedTurn(len(turns), "", record.model, str(options.get("permissions", "")))
            turns.append(current)
        elif record.kind == "message" and current is not None:
            message = record.message
            if isinstance(message, UserMessage) and not current.prompt and not current.messages:
                current.prompt = prompt_text(message.content)
            else:
                current.messages.append(message)
    return [turn for turn in turns if turn.prompt]


class ReplayCursor:
    """Where a session's replays are in its recorded turns (one per session, for the kernel's life)."""

    def __init__(self) -> None:
        self.next_index = 0

    def choose(self, turns: list[RecordedTurn], prompt: str) -> RecordedTurn | None:
        wanted = _normalized(prompt)
        later = [turn for turn in turns if turn.index >= self.next_index and _normalized(turn.prompt) == wanted]
        anywhere = [turn for turn in turns if _normalized(turn.prompt) == wanted]
        chosen = later[0] if later else anywhere[-1] if anywhere else None
        if chosen is not None:
            self.next_index = chosen.index + 1
        return chosen

    def expected(self, turns: list[RecordedTurn]) -> RecordedTurn | None:
        """The turn a cell run in order would replay next (to tell an edited prompt from a new one)."""
        return next((turn for turn in turns if turn.index >= self.next_index), None)


def _normalized(prompt: str) -> str:
    return " ".join(prompt.split())


_CURSORS: dict[str, ReplayCursor] = {}


def cursor_for(key: str) -> ReplayCursor:
    return _CURSORS.setdefault(key, ReplayCursor())


def arguments_key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


__all__ = ["RecordedCall", "RecordedTurn", "ReplayCursor", "arguments_key", "cursor_for", "prompt_text", "recorded_turns"]
