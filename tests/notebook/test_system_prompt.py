from pathlib import Path

from jupyter_agent.notebook.system_prompt import (
    CELL_CHARS,
    RECENT_CHARS,
    PromptContext,
    build_system_prompt,
    recent_cells,
)


def test_prompt_says_what_and_where():
    prompt = build_system_prompt(PromptContext(
        notebook_path=Path("/data/analysis.ipynb"), workspace=Path("/data"), tool_names=["python", "read"],
        model_name="openai/gpt-4.1-mini", context_section="# Project instructions\n\nUse polars.",
    ))
    assert "jupyter-agent" in prompt and "live Jupyter kernel" in prompt
    assert "Notebook: /data/analysis.ipynb" in prompt and "Workspace (file tools are confined to it): /data" in prompt
    assert "- `python`: run Python code" in prompt and "- `read`:" in prompt
    assert prompt.rstrip().endswith("Use polars.")


def test_without_notebook_or_tools():
    prompt = build_system_prompt(PromptContext(notebook_path=None, workspace=Path("/w"), tool_names=[]))
    assert "No notebook file" in prompt and "no tools" in prompt


def test_recent_cells_skip_agent_cells_and_keep_outputs():
    user_ns = {
        "In": ["", "import pandas as pd", "df = pd.DataFrame({'a': [1]})",
               "get_ipython().run_cell_magic('agent', '', 'hi')", "df.shape", ""],
        "Out": {4: (1, 1)},
    }
    assert recent_cells(user_ns) == [(1, "import pandas as pd", None), (2, "df = pd.DataFrame({'a': [1]})", None),
                                     (4, "df.shape", "(1, 1)")]
    assert recent_cells(user_ns, limit=1) == [(4, "df.shape", "(1, 1)")]


def test_recent_cells_survive_a_broken_repr():
    class Broken:
        def __repr__(self):
            raise RuntimeError("boom")

    cells = recent_cells({"In": ["", "x"], "Out": {1: Broken()}})
    assert "unrepresentable Broken" in cells[0][2]


def test_long_cells_are_capped():
    big = "x = 1\n" * 2000
    cells = [(n, big, None) for n in range(1, 10)]
    prompt = build_system_prompt(PromptContext(notebook_path=None, workspace=Path("/w"), tool_names=[], recent_cells=cells))
    recent = prompt.split("The user's most recent cells (oldest first):\n")[1]
    assert len(recent) <= RECENT_CHARS
    assert "In [9]:" in recent and "In [1]:" not in recent  # the newest are kept
    assert "more characters]" in recent and len(big) > CELL_CHARS
