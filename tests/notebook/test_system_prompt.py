from pathlib import Path

from jupyter_agent.notebook.system_prompt import PromptContext, build_system_prompt


def test_prompt_says_what_and_where():
    prompt = build_system_prompt(
        PromptContext(
            notebook_path=Path("/data/analysis.ipynb"),
            workspace=Path("/data"),
            tool_names=["python", "read"],
            model_name="openai/gpt-4.1-mini",
            context_section="# Project instructions\n\nUse polars.",
        )
    )
    assert "jupyter-agent" in prompt and "live Jupyter kernel" in prompt
    assert "Notebook: /data/analysis.ipynb" in prompt and "Workspace (file tools are confined to it): /data" in prompt
    assert "- `python`: run Python code" in prompt and "- `read`:" in prompt
    assert prompt.rstrip().endswith("Use polars.")


def test_without_notebook_or_tools():
    prompt = build_system_prompt(PromptContext(notebook_path=None, workspace=Path("/w"), tool_names=[]))
    assert "No notebook file" in prompt and "no tools" in prompt


def test_the_notebook_outline_comes_last_after_the_stable_sections(tmp_path):
    import json

    from jupyter_agent.features.notebook_tools import outline_section, read_disk_cells

    notebook = tmp_path / "a.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "cells": [
                    {"id": "md", "cell_type": "markdown", "source": "# Revenue by region"},
                    {"id": "agent", "cell_type": "code", "source": "%%agent\nplot it", "execution_count": 2, "outputs": []},
                ]
            }
        )
    )
    user_ns = {"In": ["", "x = 1", "get_ipython().run_cell_magic('agent', '', 'plot it')", "sales = load()"], "Out": {}}
    cells, source = read_disk_cells(notebook, user_ns)
    outline = outline_section(cells, source, agent_cell_id="agent")
    prompt = build_system_prompt(
        PromptContext(
            notebook_path=notebook,
            workspace=tmp_path,
            tool_names=["notebook_read"],
            context_section="# Project\n\nUse polars.",
            notebook_outline=outline,
        )
    )
    assert prompt.index("Use polars.") < prompt.index("## Notebook outline") and prompt.rstrip().endswith("sales = load()")
    assert "- 0 `md` markdown: # Revenue by region" in prompt
    assert "- 1 `agent` code [2] ← this agent cell: %%agent" in prompt
    assert "run_cell_magic('agent'" not in prompt  # agent cells from the history stay out
    assert "In [" not in prompt  # no raw In/Out reprs any more


def test_the_model_is_told_to_use_the_engine_of_big_frames():
    prompt = build_system_prompt(PromptContext(notebook_path=None, workspace=Path("/w"), tool_names=["inspect"]))
    assert (
        "Big or lazy data (Dask, Spark, Polars lazy frames, DuckDB, Arrow datasets): work with the engine's own operations"
        in prompt
    )
    assert "do not convert the whole to pandas, `.compute()`/`.collect()` it" in prompt
