"""The notebook tools' frontend, implemented over the extension's comm (``NotebookFrontend``).

Requests go to the view the turn came from (``target.Addressee``: the side panel's notebook view
that asked, else a view of the browser tab that ran the cell, else the panel opened last), fixed
when the frontend is made, at the turn's start, and are awaited on the kernel's loop, which stays
free while the agent waits (the comm reply is handled there). Without the extension an insert can
still be offered as the next cell with ``set_next_input``.
"""

from __future__ import annotations

import uuid
from typing import cast

from jupyter_agent.features.frontend import CellJson, CellReply, EditOperation, FrontendError, is_cell
from jupyter_agent.notebook.comm import protocol as p
from jupyter_agent.notebook.comm.hooks import current_client, target_for
from jupyter_agent.notebook.comm.target import Addressee, AgentCommTarget, asking_frontend

READ_TIMEOUT = 20.0  # a busy browser answers comm messages between renders


class CommNotebookFrontend:
    def __init__(self, shell: object) -> None:
        """``shell``: the kernel's IPython shell (its kernel's comm target, its ``set_next_input``)."""
        self.shell = shell
        self.addressee = Addressee(asking_frontend.get(), current_client(shell))

    @property
    def connected(self) -> bool:
        return bool(target_for(self.shell).connected)

    # The extension's replies are nbformat-shaped by its contract (``protocol.NotebookReply``): the
    # comm's JSON becomes the features' cell types here, where it enters.
    async def read_cells(self) -> list[CellJson]:
        reply = await self._ask(p.NotebookRequest(request_id=_new_id(), action="read"), READ_TIMEOUT)
        return [cell for cell in reply.cells or [] if is_cell(cell)]  # each one is: a pydantic dict

    async def edit(self, operation: EditOperation) -> CellReply:
        request = p.NotebookRequest(request_id=_new_id(), action="edit", operation=dict(operation))
        reply = await self._ask(request, READ_TIMEOUT)
        return cast(CellReply, {"cell": reply.cell, "index": reply.index})

    async def run_cell(self, cell_id: str, timeout: float) -> CellReply:
        reply = await self._ask(p.NotebookRequest(request_id=_new_id(), action="run", cell_id=cell_id), timeout)
        return cast(CellReply, {"cell": reply.cell, "index": reply.index})

    def insert_fallback(self, source: str) -> bool:
        set_next_input = getattr(self.shell, "set_next_input", None)
        if set_next_input is None:
            return False
        set_next_input(source, replace=False)
        return True

    def send_edit(self, operation: EditOperation) -> bool:
        """An edit without waiting for the answer (``%agent undo`` runs inside a cell)."""
        request = p.NotebookRequest(request_id=_new_id(), action="edit", operation=dict(operation))
        return target_for(self.shell).send_notebook_request(request, self.addressee)

    async def _ask(self, request: p.NotebookRequest, timeout: float) -> p.NotebookReply:
        import asyncio

        target = target_for(self.shell)
        if not isinstance(target, AgentCommTarget) or not target.connected:
            raise FrontendError("the JupyterLab extension is not connected")
        try:
            reply = await target.notebook_request(request, timeout, self.addressee)
        except asyncio.TimeoutError:
            raise FrontendError(f"the notebook did not answer within {timeout:g} s") from None
        except LookupError as error:
            raise FrontendError(str(error)) from None
        if not reply.ok:
            raise FrontendError(reply.message or "the notebook refused")
        return reply


def _new_id() -> str:
    return uuid.uuid4().hex
