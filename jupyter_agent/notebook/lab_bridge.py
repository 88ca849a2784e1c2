"""What the JupyterLab extension asks of the kernel, answered from the running turns.

The extension (``labextension/``, kernel side in ``notebook/comm``) stops or steers the active
notebook's agent, shows its sessions and inserts a turn's code as cells; it learns which cell a
run belongs to from ``run_started`` / ``run_finished`` messages. Without the extension nothing
here is ever called and the messages go nowhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_agent.notebook import runner

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.notebook.comm import AgentCommTarget, DetachedTarget
    from jupyter_agent.notebook.session_manager import SessionManager

NOTHING_RUNNING = "No agent is running."
MATERIALIZE_OFFLINE = "The JupyterLab extension is not connected any more: run %agent materialize in a cell to get the code."


class LabBridge:
    """The ``AgentCommHandler`` of ``notebook.comm``: called on the kernel's event loop."""

    def __init__(self, shell: InteractiveShell | None, sessions: SessionManager) -> None:
        self.shell = shell
        self.sessions = sessions

    def sessions_folder(self) -> Path | None:
        return self.sessions.folder

    def stop(self, session: str | None) -> str:
        turns = self._running(session)
        for turn in turns:
            turn.stop()
        return f"Stopping {len(turns)} agent turn{'s' if len(turns) != 1 else ''}."

    def steer(self, text: str, session: str | None) -> str:
        delivered = [turn for turn in self._running(session) if turn.steer(text)]
        if not delivered:
            raise LookupError(NOTHING_RUNNING)
        return "Delivered at the agent's next step."

    def _running(self, session: str | None) -> list[runner.Turn]:
        chosen = [self.sessions.get(session)] if session else list(self.sessions.sessions.values())
        turns = [turn for each in chosen for turn in runner.turns_of(each)]
        if not turns:
            raise LookupError(NOTHING_RUNNING)
        return turns

    # Turn hooks: the extension learns which cell each run belongs to.

    def turn_started(self, turn: runner.Turn) -> None:
        from jupyter_agent.notebook.comm import target_for

        target_for(self.shell).send_run_started(turn.session.name, turn.request.cell_id)

    def turn_finished(self, turn: runner.Turn, status: str, steps: int) -> None:
        from jupyter_agent.notebook.comm import target_for

        target = target_for(self.shell)
        target.send_run_finished(turn.session.name, turn.request.cell_id, status=status, steps=steps)
        self._offer_materialize(turn, target)

    def _offer_materialize(self, turn: runner.Turn, target: AgentCommTarget | DetachedTarget) -> None:
        """A "Materialize" button on the finished panel, when the extension can insert cells."""
        if not target.connected:
            return
        from jupyter_agent.notebook.comm import python_cells

        model = turn.resolved.model.id if turn.resolved is not None else None
        cells = python_cells(turn.new_messages(), session=turn.session.name, model=model)
        if not cells:
            return
        count = f"{len(cells)} cell{'s' if len(cells) != 1 else ''}"

        def materialize() -> str:
            # A click cannot fall back to set_next_input: that works only while a cell executes.
            if target.send_materialize(cells, turn.request.cell_id):
                return f"Inserting {count} below the agent cell."
            return MATERIALIZE_OFFLINE

        turn.renderer.offer_materialize(len(cells), materialize)
