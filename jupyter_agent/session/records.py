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
    # The session ids of the source and of the sessions it was forked from: signatures made in
    # them stay valid in the fork, which holds copies of their records (``session/trust.py``).
    sessions: list[str] = Field(default_factory=list)


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


class CallSignature(BaseModel):
    """This user's HMAC over (session, call id, tool name, arguments), made when the call was allowed.

    Only on tool-result records; ``session`` is the id of the session the call ran in.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    session: str
    hmac: str


class MessageRecord(_Record):
    kind: Literal["message"] = "message"
    message: Message
    signature: CallSignature | None = None  # a tool result whose call this user's kernel allowed


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


class CellRef(BaseModel):
    """The notebook cell a turn came from: how a re-run finds the turn it redoes (``session/cells.py``).

    ``cell_id`` is JupyterLab's id of the cell (None where the client sends none: nbclient,
    papermill); ``position`` counts the agent cells the kernel ran before it (from 0) and
    ``prompt`` is a digest of what the cell says, which together stand in for a missing id.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    cell_id: str | None = None
    position: int = 0
    prompt: str = ""
    kernel: str = ""  # the run id of the kernel process that ran the cell
    execution_count: int | None = None


class RequestRecord(_Record):
    """The model and the non-secret request settings a run used; it starts a turn."""

    kind: Literal["request"] = "request"
    model: str
    options: dict[str, Any] = Field(default_factory=dict)
    cell: CellRef | None = None  # None: a turn from no cell (the terminal, the side panel, older files)


class BranchRecord(_Record):
    """Starts a branch after record ``at`` (its parent; None: before the first record).

    ``source`` names the session a fork came from; ``redo`` is the first record of the turn a
    re-run cell replaced (that turn and the ones after it stay on the branch they were on).
    """

    kind: Literal["branch"] = "branch"
    at: str | None
    source: str | None = None
    redo: str | None = None


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


def model_name(model: Any) -> str | None:
    """A model as a record names it: its id (a ``Model``), or the name it is."""
    if model is None or isinstance(model, str):
        return model
    return getattr(model, "id", None) or str(model)


_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "spend_usd")
# A messages.Usage (per response) names the same quantities differently.
_USAGE_ALIASES = {
    "input": "input_tokens",
    "output": "output_tokens",
    "cache_read": "cache_read_tokens",
    "cache_write": "cache_write_tokens",
}


def usage_fields(step_usage: Any) -> dict[str, Any]:
    """A ``UsageRecord``'s fields from the runtime's ``RunUsage``, a ``messages.Usage`` or a mapping of either."""
    if hasattr(step_usage, "model_dump"):
        step_usage = step_usage.model_dump()
    elif not isinstance(step_usage, dict):
        step_usage = {name: getattr(step_usage, name) for name in _USAGE_FIELDS if hasattr(step_usage, name)}
    fields = {_USAGE_ALIASES.get(key, key): value for key, value in step_usage.items()}
    if "spend_usd" not in fields and isinstance(fields.get("cost"), dict):
        fields["spend_usd"] = fields["cost"].get("total", 0.0)
    return {name: fields[name] for name in _USAGE_FIELDS if fields.get(name) is not None}


__all__ = [
    "BranchRecord",
    "CallSignature",
    "CellRef",
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
    "model_name",
    "new_record_id",
    "usage_fields",
]
