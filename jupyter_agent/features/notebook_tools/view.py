"""The notebook tools' part of ``%agent undo`` and ``%agent diff``: the notebook cells the agent edited.

Undo is asked first (registry order): the step's notebook edits are reverted through the extension
when the step has some and no file change is newer; otherwise the kernel state's undo (files and
variables) answers. The diff lists the edits per step, each as a diff of its cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_agent.features.notebook_tools.edit_log import NotebookEditLog, edits_sections
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.views import FeatureViews

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.session_manager import AgentSession


def notebook_undo_step(session: AgentSession, step: int | None) -> int | None:
    """The step whose notebook edits ``%agent undo`` reverts: the given one, or the newest if no file change is newer."""
    edits = NotebookEditLog.for_session(session.path).edits()
    steps = {edit.step for edit in edits}
    if step is not None:
        return step if step in steps else None
    if not steps:
        return None
    newest = max(steps)
    file_steps = [e.step for e in session.snapshots.steps() if not e.undone] if session.snapshots is not None else []
    return newest if not file_steps or newest >= max(file_steps) else None


def undo_notebook_edits(magics: AgentMagics, session: AgentSession, step: int) -> Report:
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend

    frontend = CommNotebookFrontend(magics.shell)
    if not frontend.connected:
        return Report("Nothing reverted: undoing notebook edits needs the JupyterLab extension connected to this notebook.")
    edits = NotebookEditLog.for_session(session.path).take_step(step)
    for edit in edits:  # newest first
        frontend.send_edit(edit.inverse())
    lines = "\n".join(f"- {edit.op} of cell `{edit.cell_id}`" for edit in edits)
    return Report(f"Reverting the notebook edits of step {step}:\n{lines}")


def _undo(magics: AgentMagics, session: AgentSession, step: int | None) -> Report | None:
    notebook_step = notebook_undo_step(session, step)
    return undo_notebook_edits(magics, session, notebook_step) if notebook_step is not None else None


def _diff(session: AgentSession) -> tuple[str, str]:
    return edits_sections(NotebookEditLog.for_session(session.path).edits())


VIEWS = FeatureViews(undo=_undo, diff=_diff)

__all__ = ["VIEWS", "notebook_undo_step", "undo_notebook_edits"]
