"""Reading a saved notebook without the payloads of its outputs: the outline's text, fast; the rest when asked."""

import base64
import json
import os

import pytest

from jupyter_agent.features.notebook_tools import NotebookContext, notebook_tools, outline, read_disk_cells
from jupyter_agent.features.notebook_tools.ipynb import OMITTED, forget_reads, notebook_cells, without_payloads
from jupyter_agent.loop import AbortController
from jupyter_agent.tools.data_policy import DataPolicy

pytestmark = pytest.mark.anyio

IMAGE = "iVBORw0KGgo" + "A" * 5_000
TABLE = ['<table class="dataframe">\n', *(f'<tr><td>{row}</td><td>"q" [x]</td></tr>\n' for row in range(200)), "</table>"]


def cell(index, outputs, source="df.plot()"):
    return {
        "id": f"c{index}",
        "cell_type": "code",
        "source": source,
        "execution_count": index,
        "metadata": {},
        "outputs": outputs,
    }


NOTEBOOK = {
    "cells": [
        # A source that talks about "data": {...} is code, not an output: it stays as written.
        cell(0, [], source='payload = {"data": {"image/png": "' + "B" * 400 + '"}}'),
        cell(
            1,
            [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": IMAGE, "text/plain": ["<Figure size 640x480>"]},
                }
            ],
        ),
        cell(
            2,
            [
                {
                    "output_type": "execute_result",
                    "execution_count": 2,
                    "metadata": {},
                    "data": {"text/html": TABLE, "text/plain": ["   a  b\n", "0  1  2"], "text/markdown": "x" * 500},
                }
            ],
        ),
        cell(
            3,
            [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "image/svg+xml": "<svg/>"},
                }
            ],
        ),
        {"id": "notes", "cell_type": "markdown", "metadata": {}, "source": ['see "data": {"image/png": "…"}']},
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def notebook(tmp_path):
    forget_reads()
    path = tmp_path / "big.ipynb"
    path.write_text(json.dumps(NOTEBOOK, indent=1))
    return path


def test_long_output_payloads_are_left_out_and_everything_else_is_read_as_written(notebook):
    cells = notebook_cells(notebook)
    assert cells[0]["source"] == NOTEBOOK["cells"][0]["source"] and cells[4] == NOTEBOOK["cells"][4]
    # An image keeps the head of its base64 (its size is there), whole quads only.
    assert cells[1]["outputs"][0]["data"] == {"image/png": IMAGE[:64], "text/plain": ["<Figure size 640x480>"]}
    data = cells[2]["outputs"][0]["data"]
    assert data["text/html"] == OMITTED  # a table with quotes and brackets in it, as nbformat's list of lines
    assert data["text/plain"] == ["   a  b\n", "0  1  2"] and data["text/markdown"] == "x" * 500  # what readers see
    assert cells[3]["outputs"][0]["data"] == NOTEBOOK["cells"][3]["outputs"][0]["data"]  # short values stay
    # Read with payloads, the notebook is what the file holds.
    assert notebook_cells(notebook, payloads=True) == NOTEBOOK["cells"]
    # Compact JSON (no spaces) is read the same way.
    compact = json.dumps(NOTEBOOK, separators=(",", ":"))
    assert json.loads(without_payloads(compact.encode()))["cells"] == cells


def test_a_read_is_remembered_until_the_file_changes(notebook):
    first = notebook_cells(notebook)
    assert notebook_cells(notebook) is first
    changed = {**NOTEBOOK, "cells": NOTEBOOK["cells"][:2]}
    notebook.write_text(json.dumps(changed))
    os.utime(notebook, ns=(1, 1))  # whatever the clock's resolution: another modification time
    assert len(notebook_cells(notebook)) == 2
    notebook.write_text("{not json")
    assert notebook_cells(notebook) is None
    assert read_disk_cells(notebook, {})[0] == []  # a broken file reads as no cells, as before


async def test_the_outline_marks_what_was_left_out_and_a_full_read_attaches_the_image(notebook):
    cells, source = read_disk_cells(notebook, {})
    text = outline(cells, source)
    assert "<Figure size 640x480> <image/png>" in text and "a b 0 1 2" not in text and "xxxxx" in text  # markdown first
    assert "widget <image/svg+xml>" in text
    context = NotebookContext(frontend=_NoFrontend(), notebook_path=lambda: notebook, user_ns={})
    read = next(tool for tool in notebook_tools(context) if tool.name == "notebook_read")
    output = await read.execute(read.parameters(cell_ids=["c1"]), AbortController().signal)
    images = [block for block in output.content if block.type == "image"]
    assert [image.data for image in images] == [IMAGE]


def test_under_schema_the_outline_of_a_big_image_still_names_its_size(tmp_path):
    forget_reads()
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
    png = base64.b64encode(header + bytes(range(256)) * 40).decode()  # 10 KB: its payload is left out
    jpeg = base64.b64encode(JPEG_HEAD + bytes(3_000)).decode()
    outputs = [
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": png}},
        {"output_type": "display_data", "metadata": {}, "data": {"image/jpeg": jpeg}},
    ]
    path = tmp_path / "plots.ipynb"
    path.write_text(json.dumps({**NOTEBOOK, "cells": [cell(0, outputs)]}))
    cells, source = read_disk_cells(path, {})
    text = outline(cells, source, DataPolicy("schema"))
    assert "image image/png 640×480" in text and "image image/jpeg 320×200" in text
    assert len(cells[0].outputs[0]["data"]["image/png"]) < 100  # the rest of the image was not read


# A JPEG's start, an APP0 segment of metadata before it, then its frame header (SOF0: 200 rows, 320 columns).
JPEG_HEAD = (
    b"\xff\xd8" + b"\xff\xe0\x00\x10" + bytes(14) + b"\xff\xc0\x00\x11\x08" + (200).to_bytes(2, "big") + (320).to_bytes(2, "big")
)


class _NoFrontend:
    connected = False
