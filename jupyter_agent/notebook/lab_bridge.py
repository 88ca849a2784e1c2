"""What the JupyterLab extension asks of the kernel, answered from the running turns.

The extension (``labextension/``, kernel side in ``notebook/comm``) stops or steers the active
notebook's agent, shows its sessions and inserts a turn's code as cells; it learns which cell a
run belongs to from ``run_started`` / ``run_finished`` messages. Without the extension nothing
here is ever called and the messages go nowhere.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.notebook import runner
    from jupyter_agent.notebook.cell_edit import CellEdits
    from jupyter_agent.notebook.comm import AgentCommTarget, DetachedTarget
    from jupyter_agent.notebook.comm import protocol as p
    from jupyter_agent.notebook.completion import NotebookCompletions
    from jupyter_agent.notebook.config import AgentConfig
    from jupyter_agent.notebook.session_manager import SessionManager

NOTHING_RUNNING = "No agent is running."
MATERIALIZE_OFFLINE = "The JupyterLab extension is not connected any more: run %agent materialize in a cell to get the code."


class LabBridge:
    """The ``AgentCommHandler`` of ``notebook.comm``: called on the kernel's event loop."""

    def __init__(
        self, shell: InteractiveShell | None, sessions: SessionManager, config: Callable[[], AgentConfig] | None = None
    ) -> None:
        self.shell = shell
        self.sessions = sessions
        self._config = config
        self._completions: NotebookCompletions | None = None
        self._completions_made = threading.Lock()
        self._edits: CellEdits | None = None
        from jupyter_agent.notebook.edit_review import EditReviews

        self.reviews = EditReviews(shell)
        sessions.reviewer = self.reviews.review  # a turn's notebook_edit may be approved in its cell

    def close(self) -> None:
        """The extension unloads: completions and edit runs stop, their cell hooks go."""
        if self._completions is not None:
            self._completions.close()
            self._completions = None
        if self._edits is not None:
            self._edits.close()
            self._edits = None

    # Edit with Agent (made on the first request).

    def edit_cell(self, request: p.EditCellRequest, send: Callable[[p.ProtocolMessage], None]) -> None:
        self.edits.propose(request, send)

    def cancel_edit(self, request_id: str) -> None:
        if self._edits is not None:
            self._edits.cancel(request_id)

    def decide_edit(self, decision: p.EditDecision) -> str:
        reviewed = self.reviews.decide(decision)  # a turn's notebook_edit reviewed in the cell
        return reviewed if reviewed is not None else self.edits.decide(decision)

    def chat(self, request: p.ChatRequest, send: Callable[[p.ProtocolMessage], None]) -> p.ProtocolMessage:
        """A turn asked from the side panel, shown there (``notebook/side_panel.py``)."""
        from jupyter_agent.notebook.side_panel import start_side_turn

        return start_side_turn(self.shell, request, send)

    @property
    def edits(self) -> CellEdits:
        if self._edits is None:
            from jupyter_agent.notebook.cell_edit import CellEdits
            from jupyter_agent.notebook.config import AgentConfig

            self._edits = CellEdits(self.shell, self.sessions, self._config or AgentConfig)
        return self._edits

    # Inline completion (made on the first request: a notebook without the extension pays nothing).

    # Both on the thread the comm message arrived on (notebook/comm/target.py: THREAD_SAFE).
    def complete(self, request: p.CompleteRequest, send: Callable[[p.Completion], None]) -> None:
        self.completions.complete(request, send)

    def cancel_completion(self, request_id: str) -> None:
        if self._completions is not None:
            self._completions.cancel(request_id)

    @property
    def completions(self) -> NotebookCompletions:
        with self._completions_made:  # the first two requests may arrive on two threads
            if self._completions is None:
                from jupyter_agent.notebook.completion import NotebookCompletions
                from jupyter_agent.notebook.config import AgentConfig

                self._completions = NotebookCompletions(self.shell, self.sessions, self._config or AgentConfig)
            return self._completions

    def sessions_folder(self) -> Path | None:
        return self.sessions.folder

    def notebook_moved(self, path: str, previous: str | None) -> str:
        from jupyter_agent.notebook.session_moves import follow_notebook

        return follow_notebook(self.sessions, path, previous)

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
        from jupyter_agent.notebook import runner  # here: %load_ext imports none of a turn's modules

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

        from jupyter_agent.notebook.lab_views import MaterializeOffered

        turn.emit(MaterializeOffered(len(cells), materialize))
