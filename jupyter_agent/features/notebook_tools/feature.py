"""The notebook tools as a feature: ``notebook_read``, ``notebook_edit`` and ``notebook_run``.

Offered to every turn (and to ``%agent serve``) whose ``--tools`` picks any of them. What the agent
read of the notebook is kept per session for the kernel's life, so a later turn's edit of a cell
that changed since it was read is refused; edits are logged per session for ``%agent undo``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from jupyter_agent.features.feature import Feature, FeatureTurn, TurnContext, selected
from jupyter_agent.features.notebook_tools.edit_log import NotebookEditLog
from jupyter_agent.features.notebook_tools.running import RunControl, tracking_stale_cells
from jupyter_agent.features.notebook_tools.state import NotebookReadState
from jupyter_agent.features.notebook_tools.tools import NOTEBOOK_TOOLS, NotebookContext, notebook_tools
from jupyter_agent.loop import AgentTool
from jupyter_agent.tools.data_policy import DataPolicy

if TYPE_CHECKING:
    from jupyter_agent.features.frontend import NotebookFrontend
    from jupyter_agent.features.settings import TurnSettings

_READ_STATES: dict[str, NotebookReadState] = {}  # session file -> what its agent read of the notebook


def read_state(session_path: object) -> NotebookReadState:
    """What the agent of a session read of the notebook: kept as long as the kernel."""
    return _READ_STATES.setdefault(str(session_path), NotebookReadState())


def turn_data_policy(settings: TurnSettings) -> DataPolicy:
    """The turn's data policy, under the site's ceiling when one is in force."""
    return DataPolicy(settings.data_policy, settings.sample_rows, ceiling=settings.data_ceiling)


class NotebookToolsTurn(FeatureTurn):
    """The turn's notebook tools; a python call that changes variables names the cells now stale
    (``notebook_run`` with ``stale: true`` re-runs them)."""

    def __init__(self, notebook: NotebookContext, tools: list[AgentTool]) -> None:
        super().__init__(tools)
        self.notebook = notebook

    def wrap(self, tool: AgentTool) -> AgentTool:
        return tracking_stale_cells(tool, self.notebook) if tool.name == "python" else tool


class NotebookToolsFeature(Feature):
    name: ClassVar[str] = "notebook_tools"
    view: ClassVar[str] = "jupyter_agent.features.notebook_tools.view"
    selectable_tools: ClassVar[tuple[str, ...]] = NOTEBOOK_TOOLS
    serves: ClassVar[bool] = True

    def enabled(self, settings: TurnSettings) -> bool:
        return bool(selected(settings, NOTEBOOK_TOOLS))

    def open(self, context: TurnContext) -> FeatureTurn:
        session = context.session
        frontend: NotebookFrontend | None = context.frontend
        if frontend is None:
            return FeatureTurn()  # no notebook document to read or edit
        notebook = NotebookContext(
            frontend=frontend,
            notebook_path=lambda: session.notebook,
            user_ns=getattr(context.shell, "user_ns", None) or {},
            typed_inputs=lambda: getattr(getattr(context.shell, "history_manager", None), "input_hist_raw", ()),
            edit_log=NotebookEditLog.for_session(session.path),
            current_step=context.current_step,
            state=read_state(session.path),
            cell_waits=context.cell_waits,
            workspace=session.workspace,
            policy=turn_data_policy(context.settings),  # saved outputs reach the model as the data policy says
        )
        if context.run_control is not None:
            notebook.run = RunControl(**context.run_control)
        wanted = selected(context.settings, NOTEBOOK_TOOLS)
        return NotebookToolsTurn(notebook, [tool for tool in notebook_tools(notebook) if tool.name in wanted])


__all__ = ["NotebookToolsFeature", "NotebookToolsTurn", "read_state"]
