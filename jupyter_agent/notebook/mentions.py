"""``@name`` mentions in a ``%%agent`` prompt: what they name is attached before the first request.

* ``@df`` (a variable or attribute path): the description ``inspect`` gives, under the data policy;
* ``@cell[3]`` (an index) or ``@cell:<id>``: that cell's source and its outputs under the data
  policy (from the saved notebook and the kernel's history);
* ``@notebooks/cleaning.ipynb`` (a workspace-relative ``.ipynb`` path): that notebook's outline,
  its outputs under the data policy, from its saved file (``notebook_read`` with ``path`` reads its
  cells in full);
* anything else stays text, and a note says it matched nothing: a mention is never an error.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_agent.tools.data_policy import DataPolicy

if TYPE_CHECKING:
    from jupyter_agent.features.notebook_tools import Cell

MENTION = re.compile(
    r"(?<![\w@.`])@(cell\[(\d+)\]|cell:([\w\-]+)|([\w.\-]+(?:/[\w.\-]+)*\.ipynb)\b"
    r"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
)
ATTACHED = "Attached for the @mentions in the request:"
ATTACHMENT_CHARS = 6_000  # per mention: a description or a cell, not a dump


def expand_mentions(
    prompt: str, user_ns: dict[str, object], notebook: Path | None, policy: DataPolicy, workspace: Path | None = None
) -> str:
    """``prompt`` with a section describing every distinct mention appended; unchanged without any."""
    seen: dict[str, re.Match[str]] = {}
    for found in MENTION.finditer(prompt):
        seen.setdefault(found.group(0), found)
    if not seen:
        return prompt
    cells: list[Cell] | None = None
    parts: list[str] = []
    for mention, match in seen.items():
        if match.group(2) is not None or match.group(3) is not None:
            if cells is None:
                from jupyter_agent.features.notebook_tools import read_disk_cells

                cells = read_disk_cells(notebook, user_ns)[0]
            parts.append(_cell(mention, cells, match.group(2), match.group(3), policy))
        elif match.group(4) is not None:
            parts.append(_notebook(mention, match.group(4), workspace, policy))
        else:
            parts.append(_variable(mention, match.group(1), user_ns, policy))
    return prompt + "\n\n---\n" + ATTACHED + "\n\n" + "\n\n".join(parts)


def _variable(mention: str, path: str, user_ns: dict[str, object], policy: DataPolicy) -> str:
    from jupyter_agent.tools.errors import ToolError
    from jupyter_agent.tools.inspect_tool import describe, resolve

    try:
        value = resolve(user_ns, path)
    except (ToolError, LookupError, AttributeError):
        return f"{mention}: (note: no variable {path!r} in the kernel; the mention was left as text)"
    return f"{mention}:\n{_cap(describe(path, value, policy))}"


def _cell(mention: str, cells: list[Cell], index: str | None, cell_id: str | None, policy: DataPolicy) -> str:
    if index is not None:
        found = next((cell for cell in cells if cell.index == int(index)), None)
    else:
        found = next((cell for cell in cells if cell.id == cell_id), None)
    if found is None:
        return f"{mention}: (note: the saved notebook has no such cell; the mention was left as text)"
    shown = found.shown(policy)
    marks = f"\n({len(shown.images)} image output(s) not attached)" if shown.images else ""
    return f"{mention}:\n{_cap(shown.text)}{marks}"


def _notebook(mention: str, path: str, workspace: Path | None, policy: DataPolicy) -> str:
    from jupyter_agent.features.notebook_tools import outline, read_other_notebook
    from jupyter_agent.tools.errors import ToolError

    try:
        cells, source = read_other_notebook(workspace, path)
    except ToolError as error:
        return f"{mention}: (note: {error}; the mention was left as text)"
    hint = f"\n(notebook_read with path={path!r} shows its cells in full)"
    return f"{mention}:\n{_cap(outline(cells, source, policy))}{hint}"


def _cap(text: str) -> str:
    return text if len(text) <= ATTACHMENT_CHARS else text[:ATTACHMENT_CHARS] + "\n… (cut)"
