"""Another notebook of the workspace: read from disk inside the boundary, malformed files refused."""

import json

import pytest

from jupyter_agent.features.notebook_tools import read_other_notebook
from jupyter_agent.tools.errors import ToolError

NOTEBOOK = {"cells": [{"id": "a", "cell_type": "markdown", "source": ["# Title\n", "text"]}], "nbformat": 4}


def test_it_reads_the_cells_and_names_the_notebook(tmp_path):
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "clean.ipynb").write_text(json.dumps(NOTEBOOK))
    cells, source = read_other_notebook(tmp_path, "nb/clean.ipynb")
    assert [(c.id, c.cell_type, c.source) for c in cells] == [("a", "markdown", "# Title\ntext")]
    assert source == "nb/clean.ipynb, another notebook of the workspace, from its saved file (read-only)"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.txt", "hi", "'notes.txt' is not a notebook: path takes a .ipynb file"),
        ("broken.ipynb", "{not json", "broken.ipynb is not a readable notebook"),
        ("list.ipynb", "[1, 2]", "list.ipynb has no cells list: it is not an nbformat 4 notebook"),
    ],
)
def test_what_is_no_notebook_is_refused_with_a_reason(tmp_path, name, content, message):
    (tmp_path / name).write_text(content)
    with pytest.raises(ToolError, match=message.replace(".", r"\.").replace("(", r"\(")):
        read_other_notebook(tmp_path, name)


def test_the_workspace_boundary_applies_to_links_too(tmp_path):
    inside = tmp_path / "work"
    inside.mkdir()
    (tmp_path / "secret.ipynb").write_text(json.dumps(NOTEBOOK))
    (inside / "link.ipynb").symlink_to(tmp_path / "secret.ipynb")
    with pytest.raises(ToolError, match="outside the workspace through a symbolic link"):
        read_other_notebook(inside, "link.ipynb")
    with pytest.raises(ToolError, match="is outside the workspace"):
        read_other_notebook(inside, "../secret.ipynb")
    with pytest.raises(ToolError, match="needs a workspace folder"):
        read_other_notebook(None, "a.ipynb")
