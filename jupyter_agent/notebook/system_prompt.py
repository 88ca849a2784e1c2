"""The system prompt: what the agent is, where it runs, its tools, recent cells, context files."""

from __future__ import annotations

import datetime
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

# Recent cells tell the agent what the user just did; a few are enough and they cost tokens.
RECENT_CELLS = 6
CELL_CHARS = 1_500  # per input cell
OUTPUT_CHARS = 500  # per Out[n] repr
RECENT_CHARS = 6_000  # all recent cells together
_AGENT_CELL_PREFIXES = ("get_ipython().run_cell_magic('agent'", "%%agent", "await get_ipython().find_cell_magic('agent')")

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
- Plots: use matplotlib and call `plt.show()`; the figure is shown to the user (and to you if you accept images).
- Python you run executes on the kernel's main thread, like a cell: avoid long-running or \
blocking code; the user can press Stop or the kernel's Interrupt.
- Mutating tools (python, bash, write, edit) may need the user's approval; if a call is denied, \
do not retry it unchanged: explain or choose another way.
- Answer in concise Markdown. Refer to variables and files by name. When you changed the \
user's namespace or files, say what you changed."""


@dataclass
class PromptContext:
    notebook_path: Path | None
    workspace: Path
    tool_names: Sequence[str]
    model_name: str = ""
    recent_cells: list[tuple[int, str, str | None]] = field(default_factory=list)  # (n, source, output)
    context_section: str = ""  # AGENTS.md / CLAUDE.md, rendered by the session layer


def build_system_prompt(context: PromptContext) -> str:
    sections = [IDENTITY, _environment(context), _tools(context.tool_names), GUIDANCE]
    if context.recent_cells:
        sections.append(_recent(context.recent_cells))
    if context.context_section:
        sections.append(context.context_section.rstrip())
    return "\n\n".join(sections)


def _environment(context: PromptContext) -> str:
    lines = [
        "Where you are:",
        f"- Python {platform.python_version()} kernel (IPython), on {platform.system()}.",
        f"- Notebook: {context.notebook_path}" if context.notebook_path else "- No notebook file (terminal IPython or unknown).",
        f"- Workspace (file tools are confined to it): {context.workspace}",
        f"- Today: {datetime.date.today().isoformat()}.",
    ]
    if context.model_name:
        lines.append(f"- Model: {context.model_name}.")
    return "\n".join(lines)


_TOOL_HELP = {
    "python": "run Python code in the user's namespace (the last expression is shown, like a cell)",
    "variables": "list the user's variables with type, shape and size (runs no user code)",
    "inspect": "describe one object: for DataFrames dtypes, shape, nulls, summary, sample rows",
    "read": "read a text file of the workspace",
    "list": "list a folder",
    "grep": "search file contents",
    "glob": "find files by pattern",
    "edit": "replace exact text in a file (read it first)",
    "write": "create or overwrite a file (read an existing one first)",
    "bash": "run a shell command in the workspace",
    "plan": "keep an ordered checklist of a multi-step task (the user sees it above your answer)",
    "memory": "read, save or delete durable notes about this notebook (their index is below)",
    "delegate": "hand self-contained sub-tasks to sub-agents with fresh contexts and read-only tools",
}


def _tools(names: Sequence[str]) -> str:
    if not names:
        return "You have no tools in this turn: answer from the conversation."
    lines = ["Your tools:"]
    lines += [f"- `{name}`: {_TOOL_HELP[name]}" if name in _TOOL_HELP else f"- `{name}`" for name in names]
    return "\n".join(lines)


def _recent(cells: list[tuple[int, str, str | None]]) -> str:
    blocks = []
    for number, source, output in cells:
        block = f"In [{number}]:\n{_cap(source, CELL_CHARS)}"
        if output:
            block += f"\nOut[{number}]: {_cap(output, OUTPUT_CHARS)}"
        blocks.append(block)
    # Over budget, the oldest cells go first: the newest matter most.
    while len(blocks) > 1 and sum(len(block) + 1 for block in blocks) > RECENT_CHARS:
        blocks.pop(0)
    return "The user's most recent cells (oldest first):\n" + "\n".join(blocks)


def recent_cells(user_ns: dict[str, Any], limit: int = RECENT_CELLS) -> list[tuple[int, str, str | None]]:
    """The last cells from IPython's ``In``/``Out``, without agent cells (the session holds those)."""
    inputs = user_ns.get("In") or []
    outputs = user_ns.get("Out") or {}
    numbers = range(len(inputs) - 1, 0, -1)  # In[0] is always empty
    found: list[tuple[int, str, str | None]] = []
    for number in numbers:
        source = str(inputs[number]).strip()
        if not source or source.startswith(_AGENT_CELL_PREFIXES):
            continue
        output = outputs.get(number)
        found.append((number, source, _safe_repr(output) if number in outputs else None))
        if len(found) >= limit:
            break
    return list(reversed(found))


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception as error:  # noqa: BLE001 - a broken __repr__ must not break the prompt
        return f"<unrepresentable {type(value).__name__}: {error}>"


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… [{len(text) - limit} more characters]"

