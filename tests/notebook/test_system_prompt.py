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


def test_the_system_prompt_is_the_same_every_turn_and_the_turn_context_leads_the_prompt(tmp_path):
    import datetime
    import json

    from jupyter_agent.features.notebook_tools import outline_section, read_disk_cells
    from jupyter_agent.messages import with_turn_context, without_turn_context
    from jupyter_agent.notebook.system_prompt import turn_context

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
    context = PromptContext(
        notebook_path=notebook, workspace=tmp_path, tool_names=["notebook_read"], context_section="Use polars."
    )
    system = build_system_prompt(context)
    # Nothing that changes between turns is in the cached prefix: no date, no outline.
    assert "Today" not in system and "## Notebook outline" not in system and system.rstrip().endswith("Use polars.")
    assert build_system_prompt(context) == system

    turn = turn_context(outline, today=datetime.date(2026, 3, 4))
    assert turn.startswith("Today: 2026-03-04.") and turn.rstrip().endswith("sales = load()")
    assert "- 0 `md` markdown: # Revenue by region" in turn
    assert "- 1 `agent` code [2] ← this agent cell: %%agent" in turn
    assert "run_cell_magic('agent'" not in turn  # agent cells from the history stay out
    assert "In [" not in turn  # no raw In/Out reprs any more
    prompt = with_turn_context("plot it", turn)
    assert prompt.startswith("<turn-context>\nToday: 2026-03-04.") and prompt.endswith("</turn-context>\n\nplot it")
    assert without_turn_context(prompt) == "plot it" and without_turn_context("plain") == "plain"
    assert with_turn_context("plot it", "") == "plot it"


def test_views_of_the_history_and_the_demo_model_read_what_the_user_wrote():
    from jupyter_agent.messages import UserMessage, with_turn_context
    from jupyter_agent.model import Context
    from jupyter_agent.notebook.demo_model import respond
    from jupyter_agent.notebook.panel.transcript_document import messages_document

    prompt = with_turn_context("plot the sales", "Today: 2026-03-04.\n\n## Notebook outline\n- 0 `a` code: x = 1")
    document = messages_document([UserMessage(content=prompt)], result_chars=100).markdown()
    assert "plot the sales" in document and "Today" not in document and "outline" not in document
    plain, led = (respond(Context(messages=[UserMessage(content=text)])) for text in ("plot the sales", prompt))
    assert led == plain


def test_the_model_is_told_to_use_the_engine_of_big_frames():
    prompt = build_system_prompt(PromptContext(notebook_path=None, workspace=Path("/w"), tool_names=["inspect"]))
    assert (
        "Big or lazy data (Dask, Spark, Polars lazy frames, DuckDB, Arrow datasets): work with the engine's own operations"
        in prompt
    )
    assert "do not convert the whole to pandas, `.compute()`/`.collect()` it" in prompt


def test_the_prompt_says_once_where_the_plan_and_the_memory_index_arrive():
    prompt = build_system_prompt(PromptContext(notebook_path=None, workspace=Path("/w"), tool_names=["plan", "memory"]))
    assert "A request may end with a <step-context> block: your current task plan" in prompt
    assert (
        "- `memory`: read, save or delete durable notes about this notebook (their index is in the <step-context> block)"
        in prompt
    )
    assert "## Current task plan" not in prompt and "## Memory" not in prompt
