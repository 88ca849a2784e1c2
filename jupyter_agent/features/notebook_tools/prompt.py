"""The system prompt's view of the notebook: a compact outline of the cells around the agent cell.

It replaces raw ``In``/``Out`` reprs: markdown cells, errors and plots are visible too, and the
agent knows the ids ``notebook_read`` and ``notebook_edit`` take. It changes every turn, so the
prompt puts it after everything stable.
"""

from __future__ import annotations

from jupyter_agent.features.notebook_tools.cells import Cell
from jupyter_agent.tools.data_policy import DataPolicy

AROUND = 6  # cells before and after the agent cell
LINE_CHARS = 100


def outline_section(
    cells: list[Cell], source: str, agent_cell_id: str | None = None, around: int = AROUND, policy: DataPolicy | None = None
) -> str:
    """The outline around the agent cell; outputs summarized as ``policy`` allows (they are values)."""
    if not cells:
        return ""
    at = next((cell.index for cell in cells if cell.id == agent_cell_id), None)
    if at is None:
        at = len(cells) - 1  # unknown agent cell: the end of the notebook is where the user works
    first, last = max(0, at - around), min(len(cells), at + around + 1)
    lines = [f"## Notebook outline ({len(cells)} cells, from {source}; notebook_read shows more)"]
    if first:
        lines.append(f"… {first} earlier cell(s)")
    for cell in cells[first:last]:
        lines.append(_line(cell, cell.index == at and agent_cell_id is not None, policy))
    if last < len(cells):
        lines.append(f"… {len(cells) - last} later cell(s)")
    return "\n".join(lines)


def _line(cell: Cell, is_agent: bool, policy: DataPolicy | None) -> str:
    count = f" [{cell.execution_count}]" if cell.execution_count else ""
    first_line = next((line for line in cell.source.splitlines() if line.strip()), "(empty)")
    if len(first_line) > LINE_CHARS:
        first_line = first_line[: LINE_CHARS - 1] + "…"
    marker = " ← this agent cell" if is_agent else ""
    outline = cell.outline(policy).splitlines()
    summary = next((line.strip() for line in outline[2:] if line.strip().startswith("→")), "")
    summary = summary if len(summary) <= LINE_CHARS + 2 else summary[: LINE_CHARS + 1] + "…"
    return f"- {cell.index} `{cell.id}` {cell.cell_type}{count}{marker}: {first_line}" + (f" {summary}" if summary else "")
