"""The system prompt (what the agent is, where it runs, its tools, context files) and each turn's context.

A provider's prompt cache pays only while a request starts the way the previous one did, so the
system prompt holds only what stays the same from step to step and turn to turn. What changes
with every turn (today's date, the outline of the cells around the agent cell) is the turn's
context: it leads that turn's prompt (``with_turn_context``), so it sits after the cached prefix
and, kept in the history, stays the same in every later request. What changes from step to step
(the task plan, the memory index) is each request's step context, sent after its last message
and never kept (``features.turn_features``); the prompt only says where it arrives.
"""

from __future__ import annotations

import datetime
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

IDENTITY = """\
You are jupyter-agent, an AI assistant working inside the user's live Jupyter kernel. You act on \
the user's behalf in their notebook: you can run Python in their namespace, look at their \
variables and data, and read and edit files in the workspace."""

GUIDANCE = """\
How to work:
- The kernel is live and shared with the user: variables you create with `python` stay in their \
namespace, like a cell they ran. Do not overwrite or delete their variables unless asked.
- Look before you compute: use `variables` and `inspect` (they run no user code) to learn what \
exists, then run focused `python` snippets. Keep output small: print summaries, `head()`, shapes, \
never whole large objects.
- Big or lazy data (Dask, Spark, Polars lazy frames, DuckDB, Arrow datasets): work with the \
engine's own operations (filter, group-by, aggregate, SQL) and bring back only small results; do \
not convert the whole to pandas, `.compute()`/`.collect()` it or count its rows unless asked.
- Plots: use matplotlib and call `plt.show()`; the figure is shown to the user (and to you if you accept images).
- Python you run executes on the kernel's main thread, like a cell: avoid long-running or \
blocking code; the user can press Stop or the kernel's Interrupt.
- Mutating tools (python, bash, write, edit) may need the user's approval; if a call is denied, \
do not retry it unchanged: explain or choose another way.
- The notebook is shared with the user: each prompt of theirs starts with an outline of the cells \
around their agent cell, in a <turn-context> block; `notebook_read` \
shows cells in full (outputs and plots too). To change a cell, read it, then propose the change \
with `notebook_edit`; the user approves it and can undo it.
- A request may end with a <step-context> block: your current task plan (kept with `plan`) and, \
when memory is on, the index of saved notes. It is added afresh at every step, current as of that \
step, and is not something the user wrote.
- Answer in concise Markdown. Refer to variables and files by name. When you changed the \
user's namespace or files, say what you changed."""


@dataclass
class PromptContext:
    notebook_path: Path | None
    workspace: Path
    tool_names: Sequence[str]
    model_name: str = ""
    context_section: str = ""  # AGENTS.md / CLAUDE.md, rendered by the session layer


def build_system_prompt(context: PromptContext) -> str:
    sections = [IDENTITY, _environment(context), _tools(context.tool_names), GUIDANCE]
    if context.context_section:
        sections.append(context.context_section.rstrip())
    return "\n\n".join(sections)


def turn_context(notebook_outline: str = "", today: datetime.date | None = None) -> str:
    """What changes from turn to turn: the date and the cells around the agent cell
    (``features.notebook_tools.outline_section``)."""
    parts = [f"Today: {(today or datetime.date.today()).isoformat()}."]
    if notebook_outline.strip():
        parts.append(notebook_outline.strip())
    return "\n\n".join(parts)


def _environment(context: PromptContext) -> str:
    lines = [
        "Where you are:",
        f"- Python {platform.python_version()} kernel (IPython), on {platform.system()}.",
        f"- Notebook: {context.notebook_path}" if context.notebook_path else "- No notebook file (terminal IPython or unknown).",
        f"- Workspace (file tools are confined to it): {context.workspace}",
    ]
    if context.model_name:
        lines.append(f"- Model: {context.model_name}.")
    return "\n".join(lines)


TOOL_HELP = {
    "python": "run Python code in the user's namespace (the last expression is shown, like a cell)",
    "variables": "list the user's variables with type, shape and size (runs no user code)",
    "inspect": "describe one object: for DataFrames dtypes, shape, nulls, summary, sample rows (lazy frames: schema and a few rows, never computed whole)",
    "notebook_read": "read the notebook's cells and outputs (an outline, or chosen cells in full)",
    "notebook_edit": "insert, replace or delete a notebook cell (read it first; the user approves)",
    "notebook_run": "run a notebook cell in JupyterLab and get its outputs",
    "read": "read a text file of the workspace",
    "list": "list a folder",
    "grep": "search file contents",
    "glob": "find files by pattern",
    "edit": "replace exact text in a file (read it first)",
    "write": "create or overwrite a file (read an existing one first)",
    "bash": "run a shell command in the workspace",
    "plan": "keep an ordered checklist of a multi-step task (the user sees it above your answer)",
    "memory": "read, save or delete durable notes about this notebook (their index is in the <step-context> block)",
    "delegate": "hand self-contained sub-tasks to sub-agents with fresh contexts and read-only tools",
}


def _tools(names: Sequence[str]) -> str:
    if not names:
        return "You have no tools in this turn: answer from the conversation."
    lines = ["Your tools:"]
    lines += [f"- `{name}`: {TOOL_HELP[name]}" if name in TOOL_HELP else f"- `{name}`" for name in names]
    return "\n".join(lines)


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… [{len(text) - limit} more characters]"


def notebook_system_prompt(notebook: Path | None, workspace: Path, tool_names: Sequence[str], model_name: str) -> str:
    """The system prompt of a turn of this notebook: what a turn sends and what ``%agent preview`` counts."""
    return build_system_prompt(
        PromptContext(
            notebook_path=notebook,
            workspace=workspace,
            tool_names=list(tool_names),
            model_name=model_name,
            context_section=context_files_section(notebook, workspace),
        )
    )


def context_files_section(notebook: Path | None, workspace: Path) -> str:
    """The system prompt's section of context files (AGENTS.md, CLAUDE.md) from the notebook's folder up."""
    from jupyter_agent.session import context_prompt, find_context_files

    try:
        return context_prompt(find_context_files(notebook or workspace, workspace))
    except OSError:
        return ""
