"""``notebook_read``, ``notebook_edit`` and ``notebook_run``: the agent reads, edits and runs cells.

Reads come from the live document when the extension is connected, otherwise from the file on
disk merged with the kernel's history; every answer names its source. Edits are mutations
(gated; the approval bar shows the diff), refused when the cell changed since the agent read
it, and recorded for ``%agent undo``. Running a cell needs the frontend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Literal, Sequence

import anyio.to_thread
from pydantic import BaseModel, Field

from jupyter_agent.features.frontend import NEEDS_EXTENSION, CellJson, EditOperation, FrontendError, NotebookFrontend
from jupyter_agent.features.notebook_tools.cells import Cell, cells_output, outlines
from jupyter_agent.features.notebook_tools.disk import read_disk_cells
from jupyter_agent.features.notebook_tools.edit_log import NotebookEdit, NotebookEditLog
from jupyter_agent.features.notebook_tools.other import read_other_notebook
from jupyter_agent.features.notebook_tools.running import RunControl, run_tool
from jupyter_agent.features.notebook_tools.state import NotebookReadState, edit_preview
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.blocking import in_thread
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.disclosure import disclosed
from jupyter_agent.tools.errors import ToolError

LIVE_SOURCE = "the live notebook in JupyterLab (unsaved edits included)"
NOTEBOOK_TOOLS = ("notebook_read", "notebook_edit", "notebook_run")


class ReadArgs(BaseModel):
    path: str | None = Field(
        None,
        description="Another notebook to read instead of this one: a .ipynb path relative to the workspace, "
        "read from its saved file (read-only). Default: the notebook this agent runs in.",
    )
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


@dataclass
class NotebookContext:
    """What the tools need: the frontend bridge, the disk fallback and where edits are recorded."""

    frontend: NotebookFrontend
    notebook_path: Callable[[], Path | None]
    user_ns: dict[str, object]
    edit_log: NotebookEditLog | None = None
    # What the user typed for each kernel input (IPython's raw input history): cells read from the
    # kernel's history show it, not the code IPython made of a magic. Asked for when the cells are
    # read: the history holds the running cell too, whose prompt the tools have no business holding.
    typed_inputs: Callable[[], Sequence[str]] = lambda: ()
    current_step: Callable[[], int] = lambda: 0
    state: NotebookReadState = field(default_factory=NotebookReadState)
    # The %%agent cell itself waits for the turn (--wait, headless): the kernel cannot run another cell.
    cell_waits: bool = False
    workspace: Path | None = None  # where other notebooks may be read from (notebook_read's path)
    # What of the cells' outputs the model may read (their sources are code and prose: always).
    policy: DataPolicy = field(default_factory=DataPolicy)
    # notebook_run's guards (time limit, slow cells) and the stale cells it can re-run.
    run: RunControl = field(default_factory=RunControl)

    async def cells(self, *, payloads: bool = False) -> tuple[list[Cell], str]:
        """The notebook's cells; from the file, with the outputs' images and HTML only if ``payloads``."""
        if self.frontend.connected:
            try:
                raw = await self.frontend.read_cells()
                return [Cell.from_json(i, cell) for i, cell in enumerate(raw)], LIVE_SOURCE
            except FrontendError:
                pass  # the document went away mid-turn: the file still answers
        # A big notebook takes a while to read: off the kernel's loop.
        path, typed = self.notebook_path(), self.typed_inputs()
        return await anyio.to_thread.run_sync(partial(read_disk_cells, path, self.user_ns, typed, payloads=payloads))


def notebook_tools(context: NotebookContext) -> list[AgentTool]:
    return [_read_tool(context), _edit_tool(context), run_tool(context)]


def _read_tool(context: NotebookContext) -> AgentTool:
    async def execute(given: BaseModel, signal: AbortSignal) -> ToolOutput:
        args = ReadArgs.model_validate(given)
        path = args.path
        other = path is not None
        if path is not None:
            cells, source = await in_thread(lambda stop: read_other_notebook(context.workspace, path))
        else:
            # An outline needs no images; cells read in full attach theirs.
            cells, source = await context.cells(payloads=_wants_cells(args))
        chosen = _chosen(cells, args)
        policy = context.policy
        if chosen is None:
            if not other:  # another notebook is never edited: nothing to check staleness against
                context.state.saw(cells)
            shown, whole = outlines(cells, source, policy)
            withheld = "the values of the cells' outputs" if shown != whole else ""
            return disclosed([TextContent(text=shown)], [TextContent(text=whole)], policy, withheld)
        if not other:
            context.state.saw(chosen)
        head = TextContent(text=f"source: {source}")
        return cells_output([head], [head], chosen, policy)

    return AgentTool(
        name="notebook_read",
        description=(
            "Read the notebook this agent runs in. With no arguments: an outline of every cell (index, id, type, "
            "execution count, the start of its source, a summary of its outputs, errors included). With cell_ids "
            "or start/end: those cells' full source and outputs, images attached. Says whether it read the live "
            "document or the file on disk. With path: another notebook of the workspace, the same way (read-only)."
        ),
        parameters=ReadArgs,
        execute=execute,
        label="Read notebook",
        read_only=True,
    )


def _wants_cells(args: ReadArgs) -> bool:
    return bool(args.cell_ids) or args.start is not None or args.end is not None


def _chosen(cells: list[Cell], args: ReadArgs) -> list[Cell] | None:
    if not _wants_cells(args):
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
    async def execute(given: BaseModel, signal: AbortSignal) -> list[TextContent]:
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
        approval_preview=edit_preview,  # the approval shows the cell's change as a diff, and only that
    )


def _operation(args: EditArgs, cells: list[Cell], state: NotebookReadState) -> EditOperation:
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
    operation: EditOperation = {"op": args.op, "cell_id": cell.id}
    if args.op == "replace":
        operation["source"] = args.source
        operation["cell_type"] = args.cell_type
    return operation


def _cell_json(cell: Cell | None) -> CellJson | None:
    if cell is None:
        return None
    return {"id": cell.id, "cell_type": cell.cell_type, "source": cell.source}
