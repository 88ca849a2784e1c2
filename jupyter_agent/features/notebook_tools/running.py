"""``notebook_run``: the agent runs cells of the notebook in JupyterLab, one or the stale ones.

Three guards stand around a run, because a cell can cost what the agent cannot see:

* **a time limit** (``RunControl.timeout``, the python calls' ``AgentMagics.python_timeout``): at
  the limit the cell is interrupted exactly as ■ does (``RunControl.limit``, the kernel's
  ``InterruptRouter.cell_time_limit``) and the call is a "Timed out" error result with the
  output the cell made so far; the model may ask for less per call, never more;
* **slow cells ask first**: a cell whose last run took longer than ``RunControl.ask_slow_cells``
  seconds (the kernel's cell clock, ``notebook/cell_clock.py``) makes the call ask even when
  notebook_run is allowed for the session, and the prompt says how long it took last time;
* **stale cells are named**: after a ``python`` call changed variables, the cells that read them
  (``stale.stale_cells``, from the cells' source alone) are listed in that call's result, for the
  user's card and the model's next step, and ``notebook_run`` with ``stale: true`` re-runs exactly
  them in notebook order; the prompt lists them before the user approves.
"""

from __future__ import annotations

import dataclasses
import inspect
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from pydantic import BaseModel, Field

from jupyter_agent.features.frontend import NEEDS_EXTENSION, FrontendError
from jupyter_agent.features.notebook_tools.cells import Cell, cells_output
from jupyter_agent.features.notebook_tools.disk import HISTORY_NOTE
from jupyter_agent.features.notebook_tools.stale import StaleCell, stale_cells
from jupyter_agent.features.notebook_tools.state import run_preview
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.loop.types import ApprovalNote, ApprovalPreview, ToolReturn
from jupyter_agent.messages import ImageContent, JsonObject, TextContent
from jupyter_agent.runtime.privacy import PRIVACY_KEY
from jupyter_agent.tools.errors import ToolError

if TYPE_CHECKING:
    from jupyter_agent.features.notebook_tools.tools import NotebookContext

RUN_NEEDS_EXTENSION = (
    NEEDS_EXTENSION.format(what="Running a notebook cell") + " Without it, run the code with the `python` tool instead."
)
RUN_WHILE_WAITING = (
    "notebook_run cannot run a cell now: this %%agent cell waits for its turn (--wait), so the "
    "kernel runs no other cell until the turn ends. Run the code with the `python` tool instead."
)
RUN_TIMEOUT = 600.0  # without a configured limit: how long a call waits for the cell (it is not interrupted)
# After the interrupt at its limit, how long the cell's end (with the KeyboardInterrupt) may take to arrive.
INTERRUPT_GRACE = 10.0
NO_STALE_CELLS = (
    "No stale cells: no python call of this session changed a variable that a cell below its definition reads "
    "(or they were re-run since)."
)
NEEDS_TARGET = "notebook_run needs a cell_id, or stale: true to re-run the stale cells (not both)."


class LimitState:
    expired: bool  # the limit passed while the block ran


# Entered around a run of one cell: interrupts that cell (only while it executes) at the limit.
CellLimit = Callable[[str, float], AbstractContextManager[LimitState]]


@dataclass
class RunControl:
    """The kernel's side of notebook_run: how long cells took, when to ask, how long they may run."""

    cell_seconds: Callable[[str], float | None] = lambda cell_id: None  # the last run's duration
    ask_slow_cells: float | None = None  # AgentMagics.ask_slow_cells; None: never ask for that
    timeout: float | None = None  # AgentMagics.python_timeout: the default and maximum of a call
    limit: CellLimit | None = None  # interrupts a cell at its limit (None: the wait is bounded only)
    stale: list[StaleCell] = field(default_factory=list)  # the cells a python call made stale, in order
    transform: Callable[[str], str] | None = None  # IPython's transform of a cell (magics) for the analysis


class RunArgs(BaseModel):
    cell_id: str | None = Field(None, description="The cell to run, by id (notebook_read shows ids).")
    stale: bool = Field(
        False,
        description="Instead of one cell, re-run the stale cells (those a python call's result listed as reading "
        "variables it changed), in notebook order; stops at the first that fails.",
    )
    timeout: float | None = Field(
        None, gt=0, description="Seconds each cell may run before it is interrupted (default and maximum: the configured limit)."
    )


def run_tool(context: NotebookContext) -> AgentTool:
    control = context.run

    async def execute(given: BaseModel, signal: AbortSignal) -> ToolOutput:
        args = RunArgs.model_validate(given)
        _check(context, args)
        if args.stale:
            return await _run_stale(context, args)
        assert args.cell_id is not None  # _check
        cell, status, timed_out = await _run_one(context, args.cell_id, args)
        output = _output(context, [status], [cell])
        if timed_out:
            raise _as_error(output)
        return output

    def note(given: BaseModel) -> ApprovalNote | None:
        # The cells themselves (the stale ones in order) are the preview's: named as the user finds them.
        args = RunArgs.model_validate(given)
        ids = [cell.id for cell in control.stale] if args.stale else [args.cell_id] if args.cell_id else []
        slow = _slow(control, ids)
        parts = [f"cell {cell_id} took {_seconds(took)} last time" for cell_id, took in slow]
        if slow:
            parts[-1] += f" (asks above AgentMagics.ask_slow_cells = {control.ask_slow_cells:g} s)"
        return ApprovalNote("; ".join(parts), ask_always=True) if parts else None

    async def preview(args: JsonObject) -> ApprovalPreview | None:
        try:
            cells, _ = await context.cells()
        except Exception:  # noqa: BLE001 - the notebook cannot answer: the cells as the agent read them
            cells = []
        return run_preview(args, cells, control.stale)

    return AgentTool(
        name="notebook_run",
        description=(
            "Run a cell of the notebook in JupyterLab, as if the user ran it: its output lands in that cell. "
            "Returns the cell's outputs (errors included) once it finished. With stale: true, re-runs the cells "
            "a python call listed as stale (they read variables it changed), in order. A cell is interrupted at its "
            "time limit."
        ),
        parameters=RunArgs,
        execute=execute,
        label="Run cell",
        time_limit=lambda args: _limit(control, args),
        approval_note=note,
        approval_preview=preview,  # the cells as the user finds them and the heads of their sources
    )


def stale_list(stale: list[StaleCell]) -> str:
    """The stale cells as one line: what the card, the model and the approval prompt read."""
    return f"{len(stale)} stale cell{'s' if len(stale) != 1 else ''} in order: " + "; ".join(cell.describe() for cell in stale)


def _check(context: NotebookContext, args: RunArgs) -> None:
    if args.stale == bool(args.cell_id):
        raise ToolError(NEEDS_TARGET)
    if args.stale and not context.run.stale:
        raise ToolError(NO_STALE_CELLS)
    if not context.frontend.connected:
        raise ToolError(RUN_NEEDS_EXTENSION)
    if context.cell_waits:
        raise ToolError(RUN_WHILE_WAITING)


def _limit(control: RunControl, args: RunArgs) -> float | None:
    """Seconds one cell of the call may run: the model's ask, never more than the configured limit."""
    if control.timeout is None:
        return None
    return min(args.timeout, control.timeout) if args.timeout is not None else control.timeout


async def _run_one(context: NotebookContext, cell_id: str, args: RunArgs) -> tuple[Cell, TextContent, bool]:
    """The cell after its run, its status line, and whether it was interrupted at its limit."""
    control = context.run
    seconds = _limit(control, args)
    limited = control.limit is not None and seconds is not None
    guard = control.limit(cell_id, seconds) if control.limit is not None and seconds is not None else nullcontext(None)
    wait = (seconds + INTERRUPT_GRACE) if limited and seconds is not None else (args.timeout or RUN_TIMEOUT)
    with guard as state:
        try:
            result = await context.frontend.run_cell(cell_id, wait)
        except FrontendError as error:
            if getattr(state, "expired", False):
                raise ToolError(
                    f"{_timed_out(cell_id, seconds, control.timeout)} The notebook did not report its end: {error}"
                ) from None
            raise ToolError(f"could not run cell {cell_id}: {error}") from None
    timed_out = bool(getattr(state, "expired", False))
    cell = Cell.from_json(int(result.get("index", 0)), result.get("cell") or {"id": cell_id})
    _forget(control, cell_id)
    if timed_out:
        return cell, TextContent(text=_timed_out(cell_id, seconds, control.timeout)), True
    failed = any(output.get("output_type") == "error" for output in cell.outputs)
    return cell, TextContent(text=f"Cell {cell_id} {'finished with an error' if failed else 'finished'}."), False


async def _run_stale(context: NotebookContext, args: RunArgs) -> ToolOutput:
    pending = list(context.run.stale)
    cells: list[Cell] = []
    lines: list[str] = []
    for position, stale in enumerate(pending):
        cell, status, timed_out = await _run_one(context, stale.id, args)
        cells.append(cell)
        lines.append(status.text)
        failed = timed_out or any(output.get("output_type") == "error" for output in cell.outputs)
        if failed:
            rest = [later.id for later in pending[position + 1 :]]
            if rest:
                lines.append(f"Stopped there: {', '.join(rest)} not run (still stale).")
            output = _output(context, [TextContent(text="\n".join(lines))], cells)
            raise _as_error(output)
    head = f"Re-ran {len(cells)} stale cell{'s' if len(cells) != 1 else ''} in order."
    return _output(context, [TextContent(text="\n".join([head, *lines]))], cells)


def _output(context: NotebookContext, status: list[TextContent], cells: list[Cell]) -> ToolOutput:
    return cells_output(status, status, cells, context.policy)


def _as_error(output: ToolOutput) -> ToolError:
    """The run's result as an error result: the model's copy as its message, the user's in the details."""
    texts = [block.text for block in output.content or () if isinstance(block, TextContent)]
    return ToolError("\n".join(texts), details=output.details)


def _timed_out(cell_id: str, seconds: float | None, maximum: float | None) -> str:
    most = f"; a call may ask for up to {maximum:g} s (AgentMagics.python_timeout)" if maximum else ""
    return (
        f"Timed out: cell {cell_id} was still running at its {seconds or 0:g} s limit and was interrupted, as the "
        f"kernel's ■ would{most}. The kernel is alive; what the cell assigned before the interrupt keeps its value."
    )


def _slow(control: RunControl, ids: list[str]) -> list[tuple[str, float]]:
    if control.ask_slow_cells is None:
        return []
    took = [(cell_id, control.cell_seconds(cell_id)) for cell_id in ids]
    return [(cell_id, seconds) for cell_id, seconds in took if seconds is not None and seconds > control.ask_slow_cells]


def _seconds(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {int(seconds % 60)} s"


def _forget(control: RunControl, cell_id: str) -> None:
    control.stale[:] = [cell for cell in control.stale if cell.id != cell_id]  # run again: its outputs are fresh


# -- the stale list, kept after each python call --------------------------------------------------


def tracking_stale_cells(python: AgentTool, context: NotebookContext) -> AgentTool:
    """``python`` whose results, when the call changed variables, end with the cells now stale."""
    run_python = python.execute

    async def execute(args: BaseModel, signal: AbortSignal) -> ToolReturn:
        try:
            outcome = run_python(args, signal)
            result = await outcome if inspect.isawaitable(outcome) else outcome
        except ToolError as error:  # the code failed after it changed variables: those cells are stale too
            line = await _stale_line(context, error.details)
            if not line:
                raise
            failed = _with_line(ToolOutput(content=[TextContent(text=error.message)], details=error.details), line)
            raise ToolError(f"{error.message}\n{line}", details=failed.details) from None
        if not isinstance(result, ToolOutput):
            return result  # no namespace details: nothing changed
        line = await _stale_line(context, result.details)
        return _with_line(result, line) if line else result

    return dataclasses.replace(python, execute=execute)


async def _stale_line(context: NotebookContext, details: object) -> str:
    """The cells a call's namespace changes made stale, kept for notebook_run and said in one line ("": none)."""
    changed = _changed_names(details)
    if not changed:
        return ""
    cells, _ = await context.cells()
    # Cells of the notebook only: an entry of the kernel's history is no cell anyone can re-run.
    cells = [cell for cell in cells if cell.note != HISTORY_NOTE]
    found = stale_cells(cells, changed, context.run.transform)
    merged = {cell.id: cell for cell in context.run.stale}
    merged.update({cell.id: cell for cell in found})
    order = {cell.id: position for position, cell in enumerate(cells)}
    context.run.stale[:] = sorted(merged.values(), key=lambda cell: order.get(cell.id, len(order)))
    if not found:
        return ""
    how = "notebook_run with stale: true re-runs them" if context.frontend.connected else "re-run them in JupyterLab"
    return f"Stale now ({how}): {stale_list(found)}"


def _changed_names(details: object) -> set[str]:
    changes = details.get("namespace") if isinstance(details, dict) else None
    if not isinstance(changes, list):
        return set()
    return {change["name"] for change in changes if isinstance(change, dict) and isinstance(change.get("name"), str)}


def _with_line(result: ToolOutput, line: str) -> ToolOutput:
    """The result with ``line`` after its text, in the model's copy and in the user's (when kept apart)."""
    content: list[str | TextContent | ImageContent] = (
        [result.content] if isinstance(result.content, str) else list(result.content or ())
    )
    details = result.details
    mark = details.get(PRIVACY_KEY) if isinstance(details, dict) else None
    if isinstance(mark, dict) and isinstance(mark.get("local"), list):
        details = {**details, PRIVACY_KEY: {**mark, "local": [*mark["local"], {"type": "text", "text": line}]}}
    return ToolOutput(content=[*content, TextContent(text=line)], details=details)


__all__ = ["RunArgs", "RunControl", "run_tool", "stale_list", "tracking_stale_cells"]
