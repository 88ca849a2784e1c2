"""The live notebook document, as the features see it; the notebook layer implements it over the comm.

Part of the feature contract (``TurnContext.frontend``): the notebook tools read, edit and run its
cells; any feature working on the notebook itself uses the same.

The live document (JupyterLab with the extension) is the source of truth when it is connected:
it has the user's unsaved edits and it can run cells. Without it the tools fall back to the file
on disk and the kernel's history (see ``disk``).
"""

from __future__ import annotations

from typing import Any, Protocol

from jupyter_agent.errors import JupyterAgentError

NEEDS_EXTENSION = (
    "{what} needs the jupyter-agent JupyterLab extension connected to this notebook "
    "(open the notebook in JupyterLab with the extension installed)."
)


class FrontendError(JupyterAgentError):
    """The frontend refused or failed; the message is for the model."""


class NotebookFrontend(Protocol):
    @property
    def connected(self) -> bool:
        """Whether a frontend with the extension can answer now."""

    async def read_cells(self) -> list[dict[str, Any]]:
        """Every cell of the live document, nbformat 4 shaped (with ``id`` and ``outputs``)."""

    async def edit(self, operation: dict[str, Any]) -> dict[str, Any]:
        """Applies ``{"op": insert|replace|delete, ...}``; returns the cell as it is now (or the deleted one)."""

    async def run_cell(self, cell_id: str, timeout: float) -> dict[str, Any]:
        """Runs a cell in the frontend; its outputs and execution count once it finished."""

    def insert_fallback(self, source: str) -> bool:
        """Without the extension: offer ``source`` as the next cell (``set_next_input``); False if impossible."""
