"""What the JupyterLab extension asks of the kernel, answered from the running turns.

The extension (``labextension/``, kernel side in ``notebook/comm``) stops or steers the active
notebook's agent, shows its sessions and inserts a turn's code as cells; it learns which cell a
run belongs to from ``run_started`` / ``run_finished`` messages. Without the extension nothing
here is ever called and the messages go nowhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_agent.notebook import runner

NOTHING_RUNNING = "No agent is running."


class LabBridge:
    """The ``AgentCommHandler`` of ``notebook.comm``: called on the kernel's event loop."""

    def __init__(self, shell: Any, sessions: Any) -> None:
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

    def _running(self, session: str | None) -> list:
        chosen = [self.sessions.get(session)] if session else list(self.sessions.sessions.values())
        turns = [turn for each in chosen for turn in runner.turns_of(each)]
        if not turns:
            raise LookupError(NOTHING_RUNNING)
        return turns

    # Turn hooks: the extension learns which cell each run belongs to.

    def turn_started(self, turn: Any) -> None:
        from jupyter_agent.notebook.comm import target_for

        target_for(self.shell).send_run_started(turn.session.name, turn.cell_id)

    def turn_finished(self, turn: Any, status: str, steps: int) -> None:
        from jupyter_agent.notebook.comm import target_for

        target_for(self.shell).send_run_finished(turn.session.name, turn.cell_id, status=status, steps=steps)
