"""The lines of a session file: one header, then records linked by ``parent_id``.

Every record has an ``id``, the ``parent_id`` of the record before it on its branch and a
timestamp (``ts``, ms). Walking parent ids back from the newest record gives the active branch;
a ``branch`` record whose parent is an older record starts a new branch in the same file.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from typing import Annotated, Any, Final, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from jupyter_agent.messages import Message, UserMessage, now_ms

SESSION_FORMAT: Final = "jupyter-agent-session"
SESSION_VERSION = 1


class _Line(BaseModel):
    # A newer writer may add fields; an older reader keeps the record instead of dropping it.
    model_config = ConfigDict(extra="ignore")

    kind: str


class ForkOrigin(BaseModel):
    path: str
    at: str


class SessionHeader(_Line):
    kind: Literal["session"] = "session"
    format: Literal["jupyter-agent-session"] = SESSION_FORMAT
    version: int = SESSION_VERSION
    session_id: str = Field(default_factory=lambda: secrets.token_hex(8))
    created: int = Field(default_factory=now_ms)
    forked_from: ForkOrigin | None = None


class _Record(_Line):
    id: str
    parent_id: str | None = None
    ts: int = Field(default_factory=now_ms)


class MessageRecord(_Record):
    kind: Literal["message"] = "message"
    message: Message


class CompactionRecord(_Record):
    """The model's view from here on: first user message, ``summary``, records from ``first_kept_id``."""

    kind: Literal["compaction"] = "compaction"
    summary: str
    first_kept_id: str
    # The summary message exactly as the model saw it (the runtime frames the summary);
    # None: a plain user message holding ``summary``.
    message: UserMessage | None = None


class UsageRecord(_Record):
    """One step's usage (field names as in the runtime's ``RunUsage``)."""

    kind: Literal["usage"] = "usage"
    step: int | None = None
    model: str | None = None
    # "step" for an agent step; anything else (e.g. "memory") is a side request: its tokens and
    # cost count, but it is not a step of the conversation.
    purpose: str = "step"
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    spend_usd: float = 0.0


class RequestRecord(_Record):
    """The model and the non-secret request settings a run used."""

    kind: Literal["request"] = "request"
    model: str
    options: dict[str, Any] = Field(default_factory=dict)


class BranchRecord(_Record):
    """Starts a branch after record ``at`` (its parent); ``source`` names the session it came from."""

    kind: Literal["branch"] = "branch"
    at: str
    source: str | None = None


class LabelRecord(_Record):
    kind: Literal["label"] = "label"
    target_id: str
    label: str


Record = Annotated[
    Union[MessageRecord, CompactionRecord, UsageRecord, RequestRecord, BranchRecord, LabelRecord],
    Field(discriminator="kind"),
]

RECORD_ADAPTER: TypeAdapter = TypeAdapter(Record)
HEADER_ADAPTER: TypeAdapter = TypeAdapter(SessionHeader)


def new_record_id(taken: Collection[str]) -> str:
    """A short random id not yet used in the file (8 hex digits, as pi's sessions use)."""
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


__all__ = [
    "BranchRecord",
    "CompactionRecord",
    "ForkOrigin",
    "HEADER_ADAPTER",
    "LabelRecord",
    "MessageRecord",
    "RECORD_ADAPTER",
    "Record",
    "RequestRecord",
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "SessionHeader",
    "UsageRecord",
    "new_record_id",
]
