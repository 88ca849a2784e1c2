"""The live notebook document, as the features see it; the notebook layer implements it over the comm.

Part of the feature contract (``TurnContext.frontend``): the notebook tools read, edit and run its
cells; any feature working on the notebook itself uses the same.

The live document (JupyterLab with the extension) is the source of truth when it is connected:
it has the user's unsaved edits and it can run cells. Without it the tools fall back to the file
on disk and the kernel's history (see ``disk``).
"""

from __future__ import annotations

from typing import Protocol, TypedDict, TypeGuard

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.messages import JsonObject, JsonValue

NEEDS_EXTENSION = (
    "{what} needs the jupyter-agent JupyterLab extension connected to this notebook "
    "(open the notebook in JupyterLab with the extension installed)."
)


class FrontendError(JupyterAgentError):
    """The frontend refused or failed; the message is for the model."""


class CellOutput(TypedDict, total=False):
    """One output of a cell, nbformat 4 shaped (the keys its ``output_type`` has)."""

    output_type: str  # "stream", "display_data", "execute_result" or "error"
    name: str  # a stream's: "stdout" or "stderr"
    text: str | list[str]  # a stream's text (nbformat keeps multi-line strings as lists of lines)
    data: dict[str, JsonValue]  # by MIME type
    metadata: JsonObject
    execution_count: int | None
    ename: str  # an error's
    evalue: str
    traceback: list[str]


class CellJson(TypedDict, total=False):
    """A notebook cell, nbformat 4 shaped, with ``id`` (and ``outputs`` for a code cell)."""

    id: str
    cell_type: str
    source: str | list[str]
    metadata: JsonObject
    execution_count: int | None
    outputs: list[CellOutput]
    attachments: JsonObject


def is_cell(value: object) -> TypeGuard[CellJson]:
    """A JSON object read as a cell: its shape is the notebook file's (or the extension's) word,
    and the readers take each key as optional (``Cell.from_json``)."""
    return isinstance(value, dict)


class EditOperation(TypedDict, total=False):
    """A change of the live document: ``insert`` (``index``, ``source``, ``cell_type``; an undo
    also gives the ``cell_id`` to restore), ``replace`` (``cell_id``, ``source``, ``cell_type``) or
    ``delete`` (``cell_id``)."""

    op: str
    cell_id: str
    index: int
    source: str | list[str]
    cell_type: str


class CellReply(TypedDict, total=False):
    """What an edit or a run answers: the cell as it is now (or the deleted one), and its index."""

    cell: CellJson | None
    index: int


class NotebookFrontend(Protocol):
    @property
    def connected(self) -> bool:
        """Whether a frontend with the extension can answer now."""

    async def read_cells(self) -> list[CellJson]:
        """Every cell of the live document, nbformat 4 shaped (with ``id`` and ``outputs``)."""

    async def edit(self, operation: EditOperation) -> CellReply:
        """Applies ``{"op": insert|replace|delete, ...}``; returns the cell as it is now (or the deleted one)."""

    async def run_cell(self, cell_id: str, timeout: float) -> CellReply:
        """Runs a cell in the frontend; its outputs and execution count once it finished."""

    def insert_fallback(self, source: str) -> bool:
        """Without the extension: offer ``source`` as the next cell (``set_next_input``); False if impossible."""
