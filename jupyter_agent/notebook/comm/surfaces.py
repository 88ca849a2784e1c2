"""The messages of the everyday surfaces: inline completion, Edit with Agent, the side panel.

Part of the one comm protocol (``protocol`` puts them into its unions and exports them): the
frontend asks (``complete_request``, ``complete_cancel``, ``edit_cell``, ``edit_cancel``,
``edit_decision``, ``chat_request``), the kernel answers or streams (``completion``,
``edit_proposal``, ``chat_started``, ``chat_finished``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from jupyter_agent.notebook.comm.message import ProtocolMessage

# -- frontend -> kernel ------------------------------------------------------------------------


class CompleteRequest(ProtocolMessage):
    """Complete the cell at the cursor: the kernel streams ``completion`` messages with this ``request_id``."""

    type: Literal["complete_request"] = "complete_request"
    request_id: str
    prefix: str  # the cell's source before the cursor
    suffix: str = ""  # and after it
    cells_above: list[str] = Field(default_factory=list)  # sources of the cells above, nearest last
    cell_id: str | None = None
    # The request of the key before, still streaming: cancelled as this one starts, so a key that
    # replaces a request costs one message, not a cancel and a request (each a busy/idle of the kernel).
    replaces: str | None = None


class CompleteCancel(ProtocolMessage):
    """The user typed on: stop that completion (its model request is closed)."""

    type: Literal["complete_cancel"] = "complete_cancel"
    request_id: str


class EditCellRequest(ProtocolMessage):
    """Edit with Agent: propose a new source for the cell ``cell_id``; answered by an ``edit_proposal``."""

    type: Literal["edit_cell"] = "edit_cell"
    request_id: str
    prompt: str = Field(min_length=1)
    cell_id: str
    source: str = ""  # the cell as it is now
    cell_type: Literal["code", "markdown"] = "code"
    generate: bool = False  # a new empty cell to write from the prompt
    index: int | None = None


class EditCancel(ProtocolMessage):
    """The user closed the prompt box while the agent worked."""

    type: Literal["edit_cancel"] = "edit_cancel"
    request_id: str


class EditDecision(ProtocolMessage):
    """What the user did with a proposal: accepted (the cell now holds ``after``) or rejected."""

    type: Literal["edit_decision"] = "edit_decision"
    request_id: str
    cell_id: str
    accepted: bool
    before: str = ""
    after: str = ""
    index: int = 0


class ChatRequest(ProtocolMessage):
    """The side panel asks for a turn of this kernel's agent; answered by ``chat_started``."""

    type: Literal["chat_request"] = "chat_request"
    request_id: str
    prompt: str = Field(min_length=1)
    session: str | None = None  # default: the session "chat"


# -- kernel -> frontend ------------------------------------------------------------------------


class Completion(ProtocolMessage):
    """A completion as it streams: ``text`` is the whole suggestion so far; the last one is not ``streaming``.

    ``skipped``: none was made (completions are off, or a cell of the user runs); ``message`` says why.
    """

    type: Literal["completion"] = "completion"
    request_id: str
    text: str
    status: Literal["streaming", "done", "cancelled", "error", "skipped"]
    message: str = ""
    model: str = ""  # the completion model's label (the offline demo says so)


class EditProposal(ProtocolMessage):
    """The agent's new source for the cell: shown as an inline diff until the user decides."""

    type: Literal["edit_proposal"] = "edit_proposal"
    request_id: str
    cell_id: str
    source: str
    model: str = ""


class EditReview(ProtocolMessage):
    """A turn's ``notebook_edit`` awaits approval: review it in the cell (answered by an ``edit_decision``)."""

    type: Literal["edit_review"] = "edit_review"
    request_id: str
    cell_id: str
    op: Literal["replace", "delete"]
    before: str
    after: str
    tool: str = "notebook_edit"


class EditReviewDone(ProtocolMessage):
    """The approval was decided elsewhere (the panel's bar, Stop): close that review."""

    type: Literal["edit_review_done"] = "edit_review_done"
    request_id: str


class ChatStarted(ProtocolMessage):
    """The side panel's turn runs: its live panel is the widget ``model_id``."""

    type: Literal["chat_started"] = "chat_started"
    request_id: str
    session: str
    model_id: str


class ChatFinished(ProtocolMessage):
    """The side panel's turn ended: its static rendering (notebook output bundles) replaces the widget."""

    type: Literal["chat_finished"] = "chat_finished"
    request_id: str
    session: str
    bundles: list[dict[str, str]]
