"""Notebook tools: the agent reads, edits and runs the cells of the notebook it lives in.

* state: ``NotebookReadState`` (what was read, for staleness checks); ``NotebookEditLog`` (edits, for undo)
* tools: ``notebook_read``, ``notebook_edit``, ``notebook_run`` (``notebook_tools(context)``)
* running: ``notebook_run``'s time limit, slow-cell approval and stale cells (``RunControl``,
  ``tracking_stale_cells(python, context)``); stale: which cells read what a python call changed
* other: ``read_other_notebook`` (another ``.ipynb`` of the workspace, from disk, read-only)
* frontend: the ``NotebookFrontend`` Protocol (``features/frontend.py``, part of the contract) over the extension's comm
* prompt section: ``outline_section`` (a compact outline around the agent cell)
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.features.frontend import FrontendError, NotebookFrontend
    from jupyter_agent.features.notebook_tools.cells import Cell, outline
    from jupyter_agent.features.notebook_tools.disk import read_disk_cells
    from jupyter_agent.features.notebook_tools.edit_log import NotebookEdit, NotebookEditLog, edits_sections
    from jupyter_agent.features.notebook_tools.ipynb import notebook_cells
    from jupyter_agent.features.notebook_tools.other import read_other_notebook
    from jupyter_agent.features.notebook_tools.prompt import outline_section
    from jupyter_agent.features.notebook_tools.running import RunControl, tracking_stale_cells
    from jupyter_agent.features.notebook_tools.state import NotebookReadState
    from jupyter_agent.features.notebook_tools.tools import NOTEBOOK_TOOLS, NotebookContext, notebook_tools

__all__ = [
    "NOTEBOOK_TOOLS",
    "Cell",
    "FrontendError",
    "NotebookContext",
    "NotebookEdit",
    "NotebookEditLog",
    "edits_sections",
    "NotebookFrontend",
    "NotebookReadState",
    "notebook_tools",
    "outline",
    "outline_section",
    "notebook_cells",
    "read_disk_cells",
    "read_other_notebook",
    "RunControl",
    "tracking_stale_cells",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
