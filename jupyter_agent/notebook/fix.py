"""``%agent fix``: a turn that fixes the last error, told what the kernel knows about it.

The prompt carries the exception (type, message, traceback), the source of the cell that raised
it (found through the traceback: IPython compiles each cell under its own file name) and the
failing frame's local variables, all under the data policy: under ``schema`` the error's type,
the line of each frame and the locals' names, types and shapes, never a message or a value; under
``sample`` a sample of each. The agent is asked to propose the fix as a ``notebook_edit`` of that cell.
"""

from __future__ import annotations

import linecache
import sys
import traceback
from collections.abc import Iterator, Mapping
from types import FrameType, TracebackType

from jupyter_agent.tools.data_policy import DataPolicy

NO_ERROR = "There is no error to fix: no cell has raised an exception in this kernel yet."
# How the request starts, and how it ends with what the user typed after %agent fix: a view that
# shows what the user asked (the demo model's "You asked:") shows that, not the request.
FIX_REQUEST = "Fix the error below."
USER_ADDS = "The user adds: "
MAX_LOCALS = 30
VALUE_CHARS = 120
TRACEBACK_CHARS = 4_000


def fix_prompt(shell: object, policy: DataPolicy, request: str = "") -> str:
    """The request of a fix turn; ``LookupError(NO_ERROR)`` when nothing failed.

    ``shell``: the kernel's IPython shell, whose compiler named each cell's code (None: no cell is found)."""
    error = getattr(sys, "last_value", None)
    tb = getattr(sys, "last_traceback", None)
    if error is None:
        raise LookupError(NO_ERROR)
    frames = list(_frames(tb))
    cell_source, count = _failing_cell(shell, frames)
    parts = [
        f"{FIX_REQUEST} Find the cell that raised it (notebook_read), propose the fix as a "
        "notebook_edit replace of that cell, then re-run it with notebook_run if that tool is available. "
        "Explain the cause in a sentence.",
        *_error_parts(shell, error, tb, policy),
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
        parts.append(f"{USER_ADDS}{request.strip()}")
    return "\n\n".join(parts)


def typed_request(prompt: str) -> str | None:
    """What the user typed for a fix turn's ``prompt`` (``%agent fix TEXT``); None for other prompts."""
    if not prompt.startswith(FIX_REQUEST):
        return None
    last = prompt.rsplit("\n\n", 1)[-1]
    return f"%agent fix {last[len(USER_ADDS) :]}" if last.startswith(USER_ADDS) else "%agent fix"


def _error_parts(shell: object, error: BaseException, tb: TracebackType | None, policy: DataPolicy) -> list[str]:
    """The exception and its traceback as the data policy allows (the message may hold values)."""
    from jupyter_agent.runtime.privacy import sample_text
    from jupyter_agent.tools.disclosure import cell_names, frames_of, traceback_structure

    name = type(error).__name__
    if policy.mode == "schema":
        frames = frames_of(error, cell_names(shell), tb)
        structure = traceback_structure(name, frames, len(_message(error)))
        return [f"Exception: {name} (its message is withheld: data_policy 'schema')", f"Traceback:\n```\n{structure}\n```"]
    trace = "".join(traceback.format_exception(type(error), error, tb))
    if len(trace) > TRACEBACK_CHARS:
        trace = "…\n" + trace[-TRACEBACK_CHARS:]
    message = f"{name}: {_message(error)}"
    if policy.mode == "sample":
        trace = sample_text(trace.rstrip(), policy.sample_lines, policy.line_chars)[0]
        message = sample_text(message, 1, policy.line_chars)[0]
    return [f"Exception: {message}", f"Traceback:\n```\n{trace.rstrip()}\n```"]


def _message(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still has a type
        return ""


def describe_locals(variables: Mapping[str, object], policy: DataPolicy) -> str:
    from jupyter_agent.tools.objects import safe_repr, value_header

    names = [name for name in variables if not name.startswith("__")]
    lines = []
    for name in names[:MAX_LOCALS]:
        value = variables[name]
        line = f"- {value_header(name, value)}"
        if policy.shows_values:
            line += f" = {safe_repr(value, VALUE_CHARS)}"
        lines.append(line)
    if len(names) > MAX_LOCALS:
        lines.append(f"- … {len(names) - MAX_LOCALS} more")
    return "\n".join(lines) or "(none)"


def _frames(tb: TracebackType | None) -> Iterator[FrameType]:
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


def _failing_cell(shell: object, frames: list[FrameType]) -> tuple[str | None, int | None]:
    """The source and execution count of the outermost frame that runs in a cell's code."""
    names = getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}
    for frame in frames:
        filename = frame.f_code.co_filename
        if filename in names:
            return "".join(linecache.getlines(filename)) or None, names[filename]
    return None, None
