"""``notebook_read``, ``notebook_edit`` and ``notebook_run``: the agent reads, edits and runs cells.

Reads come from the live document when the extension is connected, otherwise from the file on
disk merged with the kernel's history; every answer names its source. Edits are mutations
(gated; the approval bar shows the diff), refused when the cell changed since the agent read
it, and recorded for ``%agent undo``. Running a cell needs the frontend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field

from jupyter_agent.features.notebook_tools.cells import Cell, outline
from jupyter_agent.features.notebook_tools.disk import read_disk_cells
from jupyter_agent.features.notebook_tools.edit_log import NotebookEdit, NotebookEditLog
from jupyter_agent.features.notebook_tools.frontend import FrontendError, NotebookFrontend
from jupyter_agent.features.notebook_tools.state import NotebookReadState
from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.errors import ToolError

LIVE_SOURCE = "the live notebook in JupyterLab (unsaved edits included)"
NEEDS_EXTENSION = (
    "{what} needs the jupyter-agent JupyterLab extension connected to this notebook "
    "(open the notebook in JupyterLab with the extension installed)."
)
RUN_NEEDS_EXTENSION = (
    NEEDS_EXTENSION.format(what="Running a notebook cell") + " Without it, run the code with the `python` tool instead."
)
RUN_WHILE_WAITING = (
    "notebook_run cannot run a cell now: this %%agent cell waits for its turn (--wait), so the "
    "kernel runs no other cell until the turn ends. Run the code with the `python` tool instead."
)
RUN_TIMEOUT = 600.0
NOTEBOOK_TOOLS = ("notebook_read", "notebook_edit", "notebook_run")


class ReadArgs(BaseModel):
    cell_ids: list[str] = Field(default_factory=list, description="Cells to show in full, by id.")
    start: int | None = Field(None, description="First cell index of a range to show in full.")
    end: int | None = Field(None, description="Last cell index (inclusive) of that range.")


class EditArgs(BaseModel):
    op: Literal["insert", "replace", "delete"] = Field(
        description="insert a new cell, replace a cell's source, or delete a cell."
    )
    cell_id: str | None = Field(None, description="The cell to replace or delete; for insert, the new cell goes after it.")
    index: int | None = Field(
        None, description="insert only: position of the new cell (default: after cell_id, else at the end)."
    )
    source: str = Field("", description="The new cell's full source (insert and replace).")
    cell_type: Literal["code", "markdown"] = Field("code", description="Type of the new or replaced cell.")


class RunArgs(BaseModel):
    cell_id: str = Field(description="The cell to run, by id (notebook_read shows ids).")
    timeout: float = Field(RUN_TIMEOUT, gt=0, le=3600, description="Seconds to wait for the cell to finish.")


@dataclass
class NotebookContext:
    """What the tools need: the frontend bridge, the disk fallback and where edits are recorded."""

    frontend: NotebookFrontend
    notebook_path: Callable[[], Path | None]
    user_ns: dict[str, Any]
    edit_log: NotebookEditLog | None = None
    current_step: Callable[[], int] = lambda: 0
    state: NotebookReadState = field(default_factory=NotebookReadState)
    # The %%agent cell itself waits for the turn (--wait, headless): the kernel cannot run another cell.
    cell_waits: bool = False

    async def cells(self) -> tuple[list[Cell], str]:
        if self.frontend.connected:
            try:
                raw = await self.frontend.read_cells()
                return [Cell.from_json(i, cell) for i, cell in enumerate(raw)], LIVE_SOURCE
            except FrontendError:
                pass  # the document went away mid-turn: the file still answers
        return read_disk_cells(self.notebook_path(), self.user_ns)


def notebook_tools(context: NotebookContext) -> list[AgentTool]:
    return [_read_tool(context), _edit_tool(context), _run_tool(context)]


def _read_tool(context: NotebookContext) -> AgentTool:
    async def execute(given: BaseModel, signal: AbortSignal) -> list[Any]:
        args = ReadArgs.model_validate(given)
        cells, source = await context.cells()
        chosen = _chosen(cells, args)
        if chosen is None:
            context.state.saw(cells)
            return [TextContent(text=outline(cells, source))]
        context.state.saw(chosen)
        blocks: list[Any] = [TextContent(text=f"source: {source}")]
        for cell in chosen:
            text, images = cell.full()
            blocks.append(TextContent(text=text))
            blocks.extend(images)
        return blocks

    return AgentTool(
        name="notebook_read",
        description=(
            "Read the notebook this agent runs in. With no arguments: an outline of every cell (index, id, type, "
            "execution count, the start of its source, a summary of its outputs, errors included). With cell_ids "
            "or start/end: those cells' full source and outputs, images attached. Says whether it read the live "
            "document or the file on disk."
        ),
        parameters=ReadArgs,
        execute=execute,
        label="Read notebook",
        read_only=True,
    )


def _chosen(cells: list[Cell], args: ReadArgs) -> list[Cell] | None:
    if not args.cell_ids and args.start is None and args.end is None:
        return None
    by_id = {cell.id: cell for cell in cells}
    missing = [cell_id for cell_id in args.cell_ids if cell_id not in by_id]
    if missing:
        raise ToolError(f"no cell with id {', '.join(missing)}; call notebook_read without arguments for the outline")
    chosen = [by_id[cell_id] for cell_id in args.cell_ids]
    if args.start is not None or args.end is not None:
        start = args.start or 0
        end = args.end if args.end is not None else len(cells) - 1
        if not 0 <= start < len(cells) or end < start:
            raise ToolError(f"cell range {start}..{end} is outside the notebook's {len(cells)} cells (0..{len(cells) - 1})")
        chosen += [cell for cell in cells[start : end + 1] if cell not in chosen]
    return chosen


def _edit_tool(context: NotebookContext) -> AgentTool:
    async def execute(given: BaseModel, signal: AbortSignal) -> list[Any]:
        args = EditArgs.model_validate(given)
        frontend = context.frontend
        if not frontend.connected:
            if args.op != "insert":
                raise ToolError(NEEDS_EXTENSION.format(what=f"notebook_edit {args.op}"))
            if not frontend.insert_fallback(args.source):
                raise ToolError(NEEDS_EXTENSION.format(what="notebook_edit insert in this frontend"))
            return [
                TextContent(
                    text="The extension is not connected: the cell was offered as the next cell "
                    "(it appears below the cell that runs next). Its id is not known."
                )
            ]
        cells, _ = await context.cells()
        operation = _operation(args, cells, context.state)
        try:
            result = await frontend.edit(operation)
        except FrontendError as error:
            raise ToolError(f"the notebook refused the edit: {error}") from None
        after = result.get("cell")
        cell_id = str((after or {}).get("id") or operation.get("cell_id") or "")
        index = int(result.get("index", operation.get("index") or 0))
        before = _cell_json(next((c for c in cells if c.id == args.cell_id), None)) if args.op != "insert" else None
        if context.edit_log is not None:
            context.edit_log.record(
                NotebookEdit(step=context.current_step(), op=args.op, cell_id=cell_id, index=index, before=before, after=after)
            )
        if args.op == "delete":
            context.state.forget(cell_id)
        elif after is not None:
            context.state.saw([Cell.from_json(index, after)])
        verb = {"insert": "Inserted", "replace": "Replaced", "delete": "Deleted"}[args.op]
        return [TextContent(text=f"{verb} cell {cell_id} at index {index}. %agent undo reverts it.")]

    return AgentTool(
        name="notebook_edit",
        description=(
            "Change the notebook: insert a cell (after cell_id or at index), replace a cell's source, or delete a "
            "cell. Read the cell with notebook_read first: an edit of a cell that changed since is refused. The "
            "user approves each edit and can undo it with %agent undo."
        ),
        parameters=EditArgs,
        execute=execute,
        label="Edit notebook",
    )


def _operation(args: EditArgs, cells: list[Cell], state: NotebookReadState) -> dict[str, Any]:
    if args.op == "insert":
        index = args.index
        if index is None and args.cell_id is not None:
            anchor = next((cell for cell in cells if cell.id == args.cell_id), None)
            if anchor is None:
                raise ToolError(f"no cell with id {args.cell_id} to insert after; notebook_read shows the ids")
            index = anchor.index + 1
        index = len(cells) if index is None else index
        if not 0 <= index <= len(cells):
            raise ToolError(f"index {index} is outside 0..{len(cells)}")
        return {"op": "insert", "index": index, "source": args.source, "cell_type": args.cell_type}
    if not args.cell_id:
        raise ToolError(f"notebook_edit {args.op} needs the cell_id of the cell to {args.op}")
    cell = next((cell for cell in cells if cell.id == args.cell_id), None)
    if cell is None:
        raise ToolError(f"no cell with id {args.cell_id}; it may have been deleted (notebook_read shows the ids)")
    problem = state.problem(cell)
    if problem:
        raise ToolError(f"edit refused: {problem}")
    operation: dict[str, Any] = {"op": args.op, "cell_id": cell.id}
    if args.op == "replace":
        operation.update(source=args.source, cell_type=args.cell_type)
    return operation


def _cell_json(cell: Cell | None) -> dict[str, Any] | None:
    if cell is None:
        return None
    return {"id": cell.id, "cell_type": cell.cell_type, "source": cell.source}


def _run_tool(context: NotebookContext) -> AgentTool:
    async def execute(given: BaseModel, signal: AbortSignal) -> list[Any]:
        args = RunArgs.model_validate(given)
        if not context.frontend.connected:
            raise ToolError(RUN_NEEDS_EXTENSION)
        if context.cell_waits:
            raise ToolError(RUN_WHILE_WAITING)
        try:
            result = await context.frontend.run_cell(args.cell_id, args.timeout)
        except FrontendError as error:
            raise ToolError(f"could not run cell {args.cell_id}: {error}") from None
        cell = Cell.from_json(int(result.get("index", 0)), result.get("cell") or {"id": args.cell_id})
        text, images = cell.full()
        failed = any(output.get("output_type") == "error" for output in cell.outputs)
        status = "finished with an error" if failed else "finished"
        return [TextContent(text=f"Cell {args.cell_id} {status}.\n{text}"), *images]

    return AgentTool(
        name="notebook_run",
        description=(
            "Run a cell of the notebook in JupyterLab, as if the user ran it: its output lands in that cell. "
            "Returns the cell's outputs (errors included) once it finished."
        ),
        parameters=RunArgs,
        execute=execute,
        label="Run cell",
    )
