"""Another notebook of the workspace, read from its saved file: never edited, never run.

``notebook_read`` with ``path`` and ``@notebooks/cleaning.ipynb`` in a prompt read it here. The
path is resolved inside the workspace (``tools.workspace``: ``..``, absolute paths and symbolic
links out are refused), must name an existing ``.ipynb`` file, and what it holds is untrusted
input: a malformed file is an error the model can act on, never a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_agent.features.frontend import is_cell
from jupyter_agent.features.notebook_tools.cells import Cell
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.regular_file import read_regular
from jupyter_agent.tools.workspace import Workspace

OTHER_SOURCE = "{name}, another notebook of the workspace, from its saved file (read-only)"
# A notebook with big embedded outputs can be large; past this it is not parsed at all.
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024


def read_other_notebook(workspace: Path | None, path: str) -> tuple[list[Cell], str]:
    """The cells of the notebook at ``path`` (relative to the workspace) and a label naming it."""
    if workspace is None:
        raise ToolError("reading another notebook needs a workspace folder, and this kernel has none")
    root = Workspace(workspace)
    resolved = root.resolve(path)
    shown = root.relative(resolved)
    if resolved.suffix != ".ipynb":
        raise ToolError(f"{path!r} is not a notebook: path takes a .ipynb file (use read for other files)")
    if not resolved.exists():
        raise ToolError(f"no notebook {shown} in the workspace; glob '**/*.ipynb' lists them")
    # Through the workspace's folder descriptors: a folder swapped for a link meanwhile cannot lead out.
    content = read_regular(root, resolved, shown, "notebook_read", MAX_NOTEBOOK_BYTES)
    try:
        data = json.loads(content.decode("utf-8", errors="replace"))
    except ValueError as error:
        raise ToolError(f"{shown} is not a readable notebook ({error}); read shows its raw text") from None
    raw = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        raise ToolError(f"{shown} has no cells list: it is not an nbformat 4 notebook")
    cells = [Cell.from_json(index, cell) for index, cell in enumerate(c for c in raw if is_cell(c))]
    return cells, OTHER_SOURCE.format(name=shown)
