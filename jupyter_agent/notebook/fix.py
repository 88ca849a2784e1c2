"""``%agent fix``: a turn that fixes the last error, told what the kernel knows about it.

The prompt carries the exception (type, message, traceback), the source of the cell that raised
it (found through the traceback: IPython compiles each cell under its own file name) and the
failing frame's local variables, described under the data policy: names, types and shapes, and
values only when the policy shows values. The agent is asked to propose the fix as a
``notebook_edit`` of that cell.
"""

from __future__ import annotations

import linecache
import sys
import traceback
from types import TracebackType
from typing import Any

from jupyter_agent.tools.data_policy import DataPolicy

NO_ERROR = "There is no error to fix: no cell has raised an exception in this kernel yet."
MAX_LOCALS = 30
VALUE_CHARS = 120
TRACEBACK_CHARS = 4_000


def fix_prompt(shell: Any, policy: DataPolicy, request: str = "") -> str:
    """The request of a fix turn; ``LookupError(NO_ERROR)`` when nothing failed."""
    error = getattr(sys, "last_value", None)
    tb = getattr(sys, "last_traceback", None)
    if error is None:
        raise LookupError(NO_ERROR)
    frames = list(_frames(tb))
    cell_source, count = _failing_cell(shell, frames)
    trace = "".join(traceback.format_exception(type(error), error, tb))
    if len(trace) > TRACEBACK_CHARS:
        trace = "…\n" + trace[-TRACEBACK_CHARS:]
    parts = [
        "Fix the error below. Find the cell that raised it (notebook_read), propose the fix as a "
        "notebook_edit replace of that cell, then re-run it with notebook_run if that tool is available. "
        "Explain the cause in a sentence.",
        f"Exception: {type(error).__name__}: {error}",
        f"Traceback:\n```\n{trace.rstrip()}\n```",
    ]
    if cell_source is not None:
        label = f"The cell that raised it (In [{count}])" if count else "The cell that raised it"
        parts.append(f"{label}:\n```python\n{cell_source.rstrip()}\n```")
    if frames:
        frame = frames[-1]
        parts.append(
            f"Local variables of the failing frame ({frame.f_code.co_name}):\n" + describe_locals(frame.f_locals, policy)
        )
    if request.strip():
        parts.append(f"The user adds: {request.strip()}")
    return "\n\n".join(parts)


def describe_locals(variables: dict[str, Any], policy: DataPolicy) -> str:
    from jupyter_agent.tools.objects import safe_repr, shape_text, type_name

    names = [name for name in variables if not name.startswith("__")]
    lines = []
    for name in names[:MAX_LOCALS]:
        value = variables[name]
        line = f"- {name}: {type_name(value)}"
        shape = shape_text(value)
        if shape:
            line += f" ({shape})"
        if policy.shows_values:
            line += f" = {safe_repr(value, VALUE_CHARS)}"
        lines.append(line)
    if len(names) > MAX_LOCALS:
        lines.append(f"- … {len(names) - MAX_LOCALS} more")
    return "\n".join(lines) or "(none)"


def _frames(tb: TracebackType | None) -> Any:
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


def _failing_cell(shell: Any, frames: list[Any]) -> tuple[str | None, int | None]:
    """The source and execution count of the outermost frame that runs in a cell's code."""
    names = getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}
    for frame in frames:
        filename = frame.f_code.co_filename
        if filename in names:
            return "".join(linecache.getlines(filename)) or None, names[filename]
    return None, None
