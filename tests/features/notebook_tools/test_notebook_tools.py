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
    return await tool.execute(tool.parameters(**args), AbortController().signal)


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
