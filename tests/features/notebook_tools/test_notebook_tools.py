import json

import pytest

from jupyter_agent.features.notebook_tools import (
    FrontendError,
    NotebookContext,
    NotebookEditLog,
    notebook_tools,
    outline_section,
    read_disk_cells,
)
from jupyter_agent.loop import AbortController
from jupyter_agent.loop.execute_tool import normalize_output
from jupyter_agent.tools.errors import ToolError

pytestmark = pytest.mark.anyio

NOTEBOOK = {
    "cells": [
        {"id": "intro", "cell_type": "markdown", "source": ["# Sales\n", "Quarterly revenue."], "metadata": {}},
        {
            "id": "load",
            "cell_type": "code",
            "source": "df = load()",
            "execution_count": 1,
            "metadata": {},
            "outputs": [
                {
                    "output_type": "error",
                    "ename": "NameError",
                    "evalue": "name 'load' is not defined",
                    "traceback": ["\x1b[31mTraceback\x1b[0m", "  cell 1", "NameError: name 'load' is not defined"],
                }
            ],
        },
        {
            "id": "plot",
            "cell_type": "code",
            "source": "df.plot()",
            "execution_count": 2,
            "metadata": {},
            "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}}],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


class FakeFrontend:
    def __init__(self, cells=None):
        self.cells = cells
        self.edits = []
        self.offered = []

    @property
    def connected(self):
        return self.cells is not None

    async def read_cells(self):
        return [dict(cell) for cell in self.cells]

    async def edit(self, operation):
        self.edits.append(operation)
        if operation["op"] == "insert":
            cell = {"id": "new1", "cell_type": operation["cell_type"], "source": operation["source"]}
            self.cells.insert(operation["index"], cell)
            return {"cell": cell, "index": operation["index"]}
        index = next(i for i, c in enumerate(self.cells) if c["id"] == operation["cell_id"])
        if operation["op"] == "delete":
            return {"cell": self.cells.pop(index), "index": index}
        self.cells[index] = {**self.cells[index], "source": operation["source"]}
        return {"cell": self.cells[index], "index": index}

    async def run_cell(self, cell_id, timeout):
        raise FrontendError("no kernel")

    def insert_fallback(self, source):
        self.offered.append(source)
        return True


def tools(context):
    return {tool.name: tool for tool in notebook_tools(context)}


async def call(tool, **args):
    """The blocks the model reads (a result under a data policy is a ToolOutput with its details)."""
    content, _details = normalize_output(await tool.execute(tool.parameters(**args), AbortController().signal))
    return content


def text(blocks):
    return "\n".join(block.text for block in blocks if block.type == "text")


@pytest.fixture
def notebook_file(tmp_path):
    path = tmp_path / "analysis.ipynb"
    path.write_text(json.dumps(NOTEBOOK))
    return path


async def test_read_without_the_extension_outlines_the_file_with_markdown_and_saved_errors(notebook_file):
    user_ns = {"In": ["", "df = load()", "df.plot()", "total = 3 * 4"], "Out": {3: 12}}
    context = NotebookContext(frontend=FakeFrontend(), notebook_path=lambda: notebook_file, user_ns=user_ns)
    out = text(await call(tools(context)["notebook_read"]))
    assert "source: the notebook file on disk analysis.ipynb merged with 1 cell(s) run since the last save" in out
    assert "0 · intro · markdown" in out and "# Sales" in out
    assert "NameError: name 'load' is not defined" in out and "\x1b" not in out
    assert "<image/png>" in out
    assert "history-3 · code [3] · run since the last save (kernel history)" in out and "total = 3 * 4" in out


async def test_read_of_chosen_cells_attaches_images(notebook_file):
    context = NotebookContext(frontend=FakeFrontend(NOTEBOOK["cells"]), notebook_path=lambda: None, user_ns={})
    blocks = await call(tools(context)["notebook_read"], cell_ids=["plot"])
    assert "source: the live notebook in JupyterLab (unsaved edits included)" in text(blocks)
    assert [block.type for block in blocks].count("image") == 1
    with pytest.raises(ToolError, match="no cell with id nope"):
        await call(tools(context)["notebook_read"], cell_ids=["nope"])


async def test_edit_is_refused_when_stale_and_recorded_for_undo(tmp_path):
    frontend = FakeFrontend([dict(cell) for cell in NOTEBOOK["cells"]])
    log = NotebookEditLog(tmp_path / "edits.jsonl")
    context = NotebookContext(frontend=frontend, notebook_path=lambda: None, user_ns={}, edit_log=log, current_step=lambda: 2)
    named = tools(context)
    with pytest.raises(ToolError, match="cell load was not read yet"):
        await call(named["notebook_edit"], op="replace", cell_id="load", source="df = 1")
    await call(named["notebook_read"])
    frontend.cells[1] = {**frontend.cells[1], "source": "df = load('other.csv')"}  # the user typed
    with pytest.raises(ToolError, match="changed since you last read it"):
        await call(named["notebook_edit"], op="replace", cell_id="load", source="df = 1")
    await call(named["notebook_read"], cell_ids=["load"])
    out = text(await call(named["notebook_edit"], op="replace", cell_id="load", source="df = 1"))
    assert out == "Replaced cell load at index 1. %agent undo reverts it."
    await call(named["notebook_edit"], op="insert", cell_id="plot", source="# Done", cell_type="markdown")
    assert frontend.cells[3]["source"] == "# Done"
    with pytest.raises(ToolError, match="no cell with id gone"):
        await call(named["notebook_edit"], op="delete", cell_id="gone")
    edits = log.take_step(2)
    assert [edit.inverse() for edit in edits] == [
        {"op": "delete", "cell_id": "new1"},
        {"op": "replace", "cell_id": "load", "cell_type": "code", "source": "df = load('other.csv')"},
    ]
    assert log.take_step(2) == []


async def test_without_the_extension_insert_is_offered_and_the_rest_explains(tmp_path):
    frontend = FakeFrontend()
    named = tools(NotebookContext(frontend=frontend, notebook_path=lambda: None, user_ns={}))
    out = text(await call(named["notebook_edit"], op="insert", source="x = 1"))
    assert "offered as the next cell" in out and frontend.offered == ["x = 1"]
    with pytest.raises(ToolError, match="notebook_edit delete needs the jupyter-agent JupyterLab extension"):
        await call(named["notebook_edit"], op="delete", cell_id="a")
    with pytest.raises(ToolError, match="run the code with the `python` tool instead"):
        await call(named["notebook_run"], cell_id="a")


def test_outline_section_centres_on_the_agent_cell(notebook_file):
    cells, source = read_disk_cells(notebook_file, {})
    section = outline_section(cells, source, agent_cell_id="load", around=1)
    assert section.splitlines()[0].startswith("## Notebook outline (3 cells, from the notebook file on disk")
    assert "- 1 `load` code [1] ← this agent cell: df = load() → NameError" in section
    assert "- 0 `intro` markdown: # Sales" in section


async def test_run_refuses_while_the_agent_cell_blocks_the_kernel():
    frontend = FakeFrontend([dict(cell) for cell in NOTEBOOK["cells"]])
    named = tools(NotebookContext(frontend=frontend, notebook_path=lambda: None, user_ns={}, cell_waits=True))
    with pytest.raises(ToolError, match="this %%agent cell waits for its turn"):
        await call(named["notebook_run"], cell_id="load")


SECRET_VALUE = "ZEBRA-4411"
PRIVATE = {
    "cells": [
        {
            "id": "shown",
            "cell_type": "code",
            "source": "df.head()",
            "execution_count": 3,
            "metadata": {},
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": [f"{SECRET_VALUE}\n"] * 30},
                {"output_type": "execute_result", "data": {"text/plain": f"   name\n0  {SECRET_VALUE}"}, "metadata": {}},
                {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"}},
                {
                    "output_type": "error",
                    "ename": "KeyError",
                    "evalue": f"'{SECRET_VALUE}'",
                    "traceback": ["Cell In[3], line 2", f"KeyError: '{SECRET_VALUE}'"],
                },
            ],
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def private_context(tmp_path):
    from jupyter_agent.tools.data_policy import DataPolicy

    path = tmp_path / "private.ipynb"
    path.write_text(json.dumps(PRIVATE))

    def build(mode, rows=5):
        return NotebookContext(frontend=FakeFrontend(), notebook_path=lambda: path, user_ns={}, policy=DataPolicy(mode, rows))

    return build


async def test_under_schema_saved_outputs_are_their_kind_and_size_and_the_user_keeps_them(private_context):
    from jupyter_agent.runtime.privacy import local_content

    read = tools(private_context("schema"))["notebook_read"]
    output = await read.execute(read.parameters(cell_ids=["shown"]), AbortController().signal)
    model = text(output.content)
    assert SECRET_VALUE not in model and "source:\ndf.head()" in model  # sources are code: always shown
    assert "[stdout: 30 lines, 330 characters; values withheld]" in model
    assert "KeyError (message withheld: 12 characters)" in model and "at cell In[3], line 2" in model
    assert "image image/png 1×1 (not attached)" in model and not [b for b in output.content if b.type == "image"]
    assert "Values withheld (data_policy 'schema')" in model and "1 image" in model
    local = local_content(output.details)
    assert SECRET_VALUE in text(local) and [b.type for b in local].count("image") == 1


async def test_under_schema_the_outline_summarizes_outputs_without_values(private_context):
    read = tools(private_context("schema"))["notebook_read"]
    output = await read.execute(read.parameters(), AbortController().signal)
    model = text(output.content)
    assert SECRET_VALUE not in model and "stdout 30 lines" in model and "KeyError (message withheld)" in model
    assert "image image/png 1×1" in model
    assert SECRET_VALUE not in outline_section(
        *read_disk_cells(private_context("schema").notebook_path(), {}), policy=private_context("schema").policy
    )


async def test_under_sample_each_output_keeps_a_few_lines(private_context):
    blocks = await call(tools(private_context("sample", rows=1))["notebook_read"], cell_ids=["shown"])
    model = text(blocks)
    assert model.count(SECRET_VALUE) < 30 and "lines withheld" in model
    assert [b.type for b in blocks].count("image") == 1  # a sample shows the plot


async def test_an_edit_supplies_its_own_approval_preview_the_cells_diff(tmp_path):
    frontend = FakeFrontend([dict(cell) for cell in NOTEBOOK["cells"]])
    context = NotebookContext(frontend=frontend, notebook_path=lambda: None, user_ns={})
    named = tools(context)
    await call(named["notebook_read"], cell_ids=["load"])
    preview = named["notebook_edit"].approval_preview({"op": "replace", "cell_id": "load", "source": "df = 1"})
    assert "-df = load()" in preview.text and "+df = 1" in preview.text
    assert preview.kind == "diff" and preview.complete  # the diff says all the edit does: the arguments fold away
    assert named["notebook_read"].approval_preview is None  # read-only: never asks


async def test_approvals_name_cells_as_the_user_finds_them():
    """notebook_run's approval shows the cell's place and the head of its source; an edit's diff names the place once."""
    cells = [dict(cell) for cell in NOTEBOOK["cells"]]
    cells.append({"id": "long", "cell_type": "code", "source": "\n".join(f"x{i} = {i}" for i in range(12)), "metadata": {}})
    context = NotebookContext(frontend=FakeFrontend(cells), notebook_path=lambda: None, user_ns={})
    found = tools(context)
    preview = found["notebook_run"].approval_preview
    # Never read by the agent: the live notebook names it all the same.
    unread = await preview({"cell_id": "plot"})
    assert unread.text == "Run cell 3 [2] · id plot:\ndf.plot()"
    missing = await preview({"cell_id": "never-there"})
    assert missing.text == "Run cell never-there:\n(a cell not in the notebook now: its source is not known here)"
    await call(found["notebook_read"])
    run = await preview({"cell_id": "plot", "timeout": 30})
    assert run.text == "Run cell 3 [2] · id plot, interrupted after 30 s:\ndf.plot()"
    assert run.complete and run.kind == "code"  # it says all the call does: the arguments fold away
    head = (await preview({"cell_id": "long"})).text.splitlines()
    assert head[0] == "Run cell 4 [ ] · id long:" and head[1:] == [f"x{i} = {i}" for i in range(8)] + ["… (4 more lines)"]
    assert await preview({"stale": True}) is None  # nothing is stale: the call fails without asking for much
    edit = found["notebook_edit"].approval_preview({"op": "replace", "cell_id": "load", "source": "df = read()"})
    assert edit.text.splitlines()[:2] == ["--- cell 2 [1] · id load (before)", "+++ cell 2 [1] · id load (after)"]
    assert edit.text.count("df = read()") == 1 and edit.complete
    insert = found["notebook_edit"].approval_preview({"op": "insert", "cell_id": "plot", "source": "df.describe()"})
    assert insert.text.splitlines()[1] == "+++ new cell after cell 3 [2] · id plot (after)"


async def test_a_run_of_a_cell_the_notebook_cannot_show_now_is_named_as_the_agent_read_it():
    class Gone(FakeFrontend):
        async def read_cells(self):
            raise RuntimeError("the document went away")

    cells = [dict(cell) for cell in NOTEBOOK["cells"]]
    context = NotebookContext(frontend=FakeFrontend(cells), notebook_path=lambda: None, user_ns={})
    await call(tools(context)["notebook_read"])
    context.frontend = Gone(cells)
    assert (await tools(context)["notebook_run"].approval_preview({"cell_id": "plot"})).text == (
        "Run cell 3 [2] · id plot:\ndf.plot()"
    )
