"""Materialize: the code a turn ran with the ``python`` tool, as notebook cells.

With the JupyterLab extension connected, the cells go to the frontend, which inserts them below
the agent cell with their provenance in the cell metadata. Without it (another frontend, terminal
IPython), ``%agent materialize`` puts all the code into the next input with ``set_next_input``,
one commented block per step.
"""

from __future__ import annotations

from typing import Sequence

from jupyter_agent.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from jupyter_agent.notebook.comm.protocol import CellSpec, Provenance

PYTHON_TOOL = "python"
CODE_ARGUMENT = "code"  # the python tool's argument (tools/python_tool.PythonArgs)


def turn_start(messages: Sequence[Message]) -> int:
    """Index of the prompt that opened the last turn (0 when there is none).

    A prompt is a user message that follows nothing or a final answer; a user message after a tool
    result is a steer inside the turn, not a new turn.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, UserMessage):
            continue
        before = messages[index - 1] if index else None
        if before is None or (isinstance(before, AssistantMessage) and not before.tool_calls):
            return index
    return 0


def python_cells(messages: Sequence[Message], *, session: str, model: str | None = None) -> list[CellSpec]:
    """One cell per successful ``python`` call in ``messages`` (one turn), in the order they ran.

    Calls whose result was an error (or that never got a result, e.g. a stopped run) are left out:
    materialized cells should run top to bottom. ``step`` counts the turn's model round trips.
    """
    failed = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage) and m.is_error}
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
    cells: list[CellSpec] = []
    step = 0
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        step += 1
        for call in message.tool_calls:
            code = call.arguments.get(CODE_ARGUMENT)
            if call.name != PYTHON_TOOL or not isinstance(code, str) or not code.strip():
                continue
            if call.id in failed or call.id not in answered:
                continue
            provenance = Provenance(session=session, step=step, model=message.model or model)
            cells.append(CellSpec(code=code.strip("\n"), metadata=provenance))
    return cells


def last_turn_cells(messages: Sequence[Message], *, session: str, model: str | None = None) -> list[CellSpec]:
    return python_cells(messages[turn_start(messages) :], session=session, model=model)


def combined_source(cells: Sequence[CellSpec]) -> str:
    """All cells as one block of code, each step introduced by a comment naming its origin."""
    blocks = []
    for cell in cells:
        origin = f"# agent session {cell.metadata.session!r}, step {cell.metadata.step}"
        if cell.metadata.model:
            origin += f" ({cell.metadata.model})"
        blocks.append(f"{origin}\n{cell.code}")
    return "\n\n".join(blocks) + "\n"


def materialize_fallback(shell: object, cells: Sequence[CellSpec]) -> bool:
    """Puts all the code into the next input; False when there is nothing or the shell cannot.

    Works only while the shell executes a cell (the text travels in the execute reply's payload),
    so a magic may call it; a widget callback may not.
    """
    set_next_input = getattr(shell, "set_next_input", None)
    if not cells or set_next_input is None:
        return False
    set_next_input(combined_source(cells), replace=False)
    return True


__all__ = [
    "CODE_ARGUMENT",
    "PYTHON_TOOL",
    "combined_source",
    "last_turn_cells",
    "materialize_fallback",
    "python_cells",
    "turn_start",
]
