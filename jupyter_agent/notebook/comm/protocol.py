"""The versioned message schema between the kernel and the JupyterLab extension.

Every message is a JSON object with a ``type``. The frontend opens a comm on the target
``TARGET_NAME`` with a ``hello`` carrying its ``PROTOCOL_VERSION``; the kernel answers ``welcome``
(or a failed ``reply`` and closes the comm when the versions differ). Requests carry a
``request_id`` that the kernel's answer repeats. Both sides ignore fields they do not know, so a
newer peer may add fields without a version bump; removing or changing one needs a new version.
The messages of the everyday surfaces (completion, edit, side panel) are in ``surfaces``. The
TypeScript mirror is ``labextension/src/protocol.ts``; both sides are tested against the JSON
schema generated from these models (``comm/schema.py``, checked in as
``labextension/protocol/comm.schema.json``). The live panel's own wire is ``panel_protocol``.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.notebook.comm.message import ProtocolMessage
from jupyter_agent.notebook.comm.surfaces import (
    ChatFinished,
    ChatRequest,
    ChatStarted,
    CompleteCancel,
    CompleteRequest,
    Completion,
    EditCancel,
    EditCellRequest,
    EditDecision,
    EditProposal,
    EditReview,
    EditReviewDone,
)

TARGET_NAME = "jupyter_agent"
PROTOCOL_VERSION = 1


# -- frontend -> kernel ------------------------------------------------------------------------


class Hello(ProtocolMessage):
    type: Literal["hello"] = "hello"
    version: int
    client: str = ""  # e.g. "jupyterlab 4.6.6", for the kernel's log only


class Stop(ProtocolMessage):
    """Stop the agent of this kernel: every running turn, or those of ``session``."""

    type: Literal["stop"] = "stop"
    request_id: str
    session: str | None = None


class Steer(ProtocolMessage):
    type: Literal["steer"] = "steer"
    request_id: str
    text: str = Field(min_length=1)
    session: str | None = None


class ListSessions(ProtocolMessage):
    type: Literal["list_sessions"] = "list_sessions"
    request_id: str


class OpenSession(ProtocolMessage):
    type: Literal["open_session"] = "open_session"
    request_id: str
    session: str


class MaterializeRequest(ProtocolMessage):
    """The code of the last finished turn of ``session`` (default: the most recent session)."""

    type: Literal["materialize_request"] = "materialize_request"
    request_id: str
    session: str | None = None


class NotebookReply(ProtocolMessage):
    """The frontend's answer to a ``notebook_request``: the document's cells, or one cell after an edit or run."""

    type: Literal["notebook_reply"] = "notebook_reply"
    request_id: str
    ok: bool
    message: str = ""
    cells: list[dict[str, object]] | None = None  # nbformat 4 cells with ids and outputs (read)
    cell: dict[str, object] | None = None  # the edited, inserted, deleted or run cell
    index: int | None = None  # that cell's index


class NotebookMoved(ProtocolMessage):
    """The notebook is now at ``path`` (server-relative): sent when the extension connects and
    when the notebook is renamed or moved (``previous``: where it was). Its sessions follow it."""

    type: Literal["notebook_moved"] = "notebook_moved"
    request_id: str | None = None
    path: str
    previous: str | None = None


FrontendMessage = Annotated[
    Union[
        Hello,
        Stop,
        Steer,
        ListSessions,
        OpenSession,
        MaterializeRequest,
        NotebookReply,
        CompleteRequest,
        CompleteCancel,
        EditCellRequest,
        EditCancel,
        EditDecision,
        ChatRequest,
        NotebookMoved,
    ],
    Field(discriminator="type"),
]
_FRONTEND: TypeAdapter[FrontendMessage] | None = None  # built on the first message (see ProtocolMessage)
FRONTEND_TYPES = (
    "hello",
    "stop",
    "steer",
    "list_sessions",
    "open_session",
    "materialize_request",
    "notebook_reply",
    "complete_request",
    "complete_cancel",
    "edit_cell",
    "edit_cancel",
    "edit_decision",
    "chat_request",
    "notebook_moved",
)


# -- kernel -> frontend ------------------------------------------------------------------------


class RunState(ProtocolMessage):
    session: str
    cell_id: str | None = None  # the %%agent cell (JupyterLab sends its id with each execution)


class Welcome(ProtocolMessage):
    type: Literal["welcome"] = "welcome"
    version: int = PROTOCOL_VERSION
    package_version: str
    runs: list[RunState] = Field(default_factory=list)  # turns running when the frontend connected


class RunStarted(ProtocolMessage):
    type: Literal["run_started"] = "run_started"
    session: str
    cell_id: str | None = None


class RunFinished(ProtocolMessage):
    type: Literal["run_finished"] = "run_finished"
    session: str
    cell_id: str | None = None
    status: str  # the run's stop reason: completed, aborted, error, max_steps, ...
    steps: int = 0


class Provenance(ProtocolMessage):
    session: str
    step: int  # 1-based model round trip of the turn that ran the code
    model: str | None = None


class CellSpec(ProtocolMessage):
    code: str
    metadata: Provenance


class Materialize(ProtocolMessage):
    """Insert ``cells`` as code cells below the cell ``cell_id`` (below the active cell if unknown)."""

    type: Literal["materialize"] = "materialize"
    cells: list[CellSpec]
    cell_id: str | None = None
    request_id: str | None = None  # set when it answers a materialize_request


class SessionSummary(ProtocolMessage):
    name: str
    messages: int
    last_activity: str | None = None  # ISO 8601, UTC
    model: str | None = None
    cost_usd: float = 0.0
    running: bool = False


class Sessions(ProtocolMessage):
    type: Literal["sessions"] = "sessions"
    request_id: str
    folder: str | None = None
    sessions: list[SessionSummary]


class Transcript(ProtocolMessage):
    type: Literal["transcript"] = "transcript"
    request_id: str
    session: str
    markdown: str


class Reply(ProtocolMessage):
    """The outcome of a request that has no richer answer (stop, steer) or that failed."""

    type: Literal["reply"] = "reply"
    request_id: str | None = None
    ok: bool
    message: str


class NotebookRequest(ProtocolMessage):
    """The agent's notebook tools ask the live document: read every cell, apply an edit, run a cell.

    ``edit`` carries ``operation``: ``{"op": "insert", "index", "source", "cell_type"}``,
    ``{"op": "replace", "cell_id", "source", "cell_type"}`` or ``{"op": "delete", "cell_id"}``.
    ``run`` carries ``cell_id``; the reply comes when the cell finished executing.
    """

    type: Literal["notebook_request"] = "notebook_request"
    request_id: str
    action: Literal["read", "edit", "run"]
    operation: dict[str, object] | None = None
    cell_id: str | None = None


KernelMessage = Annotated[
    Union[
        Welcome,
        RunStarted,
        RunFinished,
        Materialize,
        Sessions,
        Transcript,
        Reply,
        NotebookRequest,
        Completion,
        EditProposal,
        EditReview,
        EditReviewDone,
        ChatStarted,
        ChatFinished,
    ],
    Field(discriminator="type"),
]


class ProtocolError(ValueError, JupyterAgentError):
    """A frontend message that does not follow this schema; ``request_id`` if one was readable."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def parse_frontend_message(data: object) -> FrontendMessage:
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be a JSON object, not {type(data).__name__}")
    request_id = data.get("request_id") if isinstance(data.get("request_id"), str) else None
    kind = data.get("type")
    if kind not in FRONTEND_TYPES:
        raise ProtocolError(f"unknown message type {kind!r}; this kernel understands {', '.join(FRONTEND_TYPES)}", request_id)
    global _FRONTEND
    if _FRONTEND is None:
        _FRONTEND = TypeAdapter(FrontendMessage)
    try:
        return _FRONTEND.validate_python(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'][1:])) or kind}: {e['msg']}" for e in error.errors())
        raise ProtocolError(f"invalid {kind} message: {problems}", request_id) from None


__all__ = [
    "FRONTEND_TYPES",
    "PROTOCOL_VERSION",
    "TARGET_NAME",
    "CellSpec",
    "ChatFinished",
    "ChatRequest",
    "ChatStarted",
    "CompleteCancel",
    "CompleteRequest",
    "Completion",
    "EditCancel",
    "EditCellRequest",
    "EditDecision",
    "EditProposal",
    "EditReview",
    "EditReviewDone",
    "ProtocolMessage",
    "FrontendMessage",
    "NotebookMoved",
    "Hello",
    "KernelMessage",
    "ListSessions",
    "Materialize",
    "MaterializeRequest",
    "NotebookReply",
    "NotebookRequest",
    "OpenSession",
    "ProtocolError",
    "Provenance",
    "Reply",
    "RunFinished",
    "RunStarted",
    "RunState",
    "SessionSummary",
    "Sessions",
    "Steer",
    "Stop",
    "Transcript",
    "Welcome",
    "parse_frontend_message",
]
