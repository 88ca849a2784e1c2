"""The calls the notebook integration makes: register the target, report runs, materialize.

All of them are safe without the extension and without a kernel: in terminal IPython (no comm
support) ``register_comm_target`` returns None and ``target_for`` gives a ``DetachedTarget`` whose
calls do nothing, so callers never branch on the frontend.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Sequence

from comm.base_comm import CommManager

from jupyter_agent.messages import JsonObject
from jupyter_agent.notebook.comm.materialize import last_turn_cells, materialize_fallback
from jupyter_agent.notebook.comm.protocol import CellSpec, RunState
from jupyter_agent.notebook.comm.sessions_view import read_history, session_file, session_summaries
from jupyter_agent.notebook.comm.target import AgentCommHandler, AgentCommTarget

_TARGETS: "weakref.WeakKeyDictionary[object, AgentCommTarget]" = weakref.WeakKeyDictionary()


class DetachedTarget:
    """Stands in for the target where there is none: nothing is connected, nothing is sent."""

    connected = False

    @property
    def runs(self) -> dict[str, RunState]:
        return {}

    @property
    def last_cell(self) -> dict[str, str | None]:
        return {}

    def send_run_started(self, session: str, cell_id: str | None = None) -> None:
        pass

    def send_run_finished(self, session: str, cell_id: str | None = None, status: str = "completed", steps: int = 0) -> None:
        pass

    def send_materialize(self, cells: Sequence[CellSpec], parent_cell_hint: str | None = None) -> bool:
        return False

    def send_notebook_request(self, request: object, to: object = None) -> bool:
        return False

    def send_notice(self, message: object) -> bool:
        return False


def register_comm_target(shell: object, handler: AgentCommHandler) -> AgentCommTarget | None:
    """Registers the extension's comm target on ``shell``'s kernel (again on ``%reload_ext``).

    None when the shell has no kernel or no comm manager (terminal IPython): nothing to talk to.
    """
    unregister_comm_target(shell)
    manager = _comm_manager(shell)
    if manager is None:
        return None
    target = AgentCommTarget(handler, manager, loop=_running_loop())
    target.register()
    _TARGETS[shell] = target
    return target


def unregister_comm_target(shell: object) -> None:
    target = _TARGETS.pop(shell, None)
    if target is not None:
        target.unregister()


def target_for(shell: object) -> AgentCommTarget | DetachedTarget:
    return _TARGETS.get(shell) or DetachedTarget()


def current_client(shell: object) -> str | None:
    """The kernel client session (one per browser tab) that sent the message being handled.

    Call it in the magic itself, while the cell's execute_request is the kernel's parent message.
    """
    session = _parent_header_and_metadata(shell)[0].get("session")
    return session if isinstance(session, str) and session else None


def _parent_header_and_metadata(shell: object) -> tuple[JsonObject, JsonObject]:
    """The header and metadata of the request the kernel handles (its content, a cell's code, is not needed)."""
    get_parent = getattr(getattr(shell, "kernel", None), "get_parent", None)
    if get_parent is None:
        return {}, {}
    try:
        parent = get_parent()
    except Exception:  # noqa: BLE001 - an old or unusual kernel: no parent, no harm
        return {}, {}
    if not isinstance(parent, dict):
        return {}, {}
    header, metadata = parent.get("header"), parent.get("metadata")
    return (header if isinstance(header, dict) else {}), (metadata if isinstance(metadata, dict) else {})


def current_cell_id(shell: object) -> str | None:
    """The id of the cell being executed, as JupyterLab sends it (``metadata.cellId``).

    Call it in the magic itself, while the cell's execute_request is the kernel's parent message.
    """
    cell_id = _parent_header_and_metadata(shell)[1].get("cellId")
    return cell_id if isinstance(cell_id, str) else None


def materialize_last_turn(shell: object, folder: Path | None, session: str | None = None) -> str:
    """``%agent materialize [SESSION]``: the last turn's Python code as cells; returns what happened.

    With the extension connected, the code becomes one cell per step below the turn's agent cell;
    otherwise all of it goes into the next input (``set_next_input``). Raises ``LookupError`` with
    a message for the user when there is no session or no code.
    """
    if session is None:
        summaries = session_summaries(folder)
        if not summaries:
            raise LookupError("This notebook has no agent session yet.")
        session = summaries[0].name
    cells = last_turn_cells(read_history(session_file(folder, session)), session=session)
    if not cells:
        raise LookupError(f"The last turn of session {session!r} ran no Python code that succeeded.")
    target = target_for(shell)
    count = f"{len(cells)} cell{'s' if len(cells) != 1 else ''}"
    if target.send_materialize(cells, target.last_cell.get(session)):
        return f"Inserting {count} of session {session!r} below its agent cell."
    if materialize_fallback(shell, cells):
        return f"The code of {count} of session {session!r} is in the next input."
    raise LookupError("This frontend can take neither cells nor a next input; see %agent history.")


def _comm_manager(shell: object) -> CommManager | None:
    manager = getattr(getattr(shell, "kernel", None), "comm_manager", None)
    return manager if isinstance(manager, CommManager) else None  # ipykernel's is one


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


__all__ = [
    "DetachedTarget",
    "current_cell_id",
    "materialize_last_turn",
    "register_comm_target",
    "target_for",
    "unregister_comm_target",
]
