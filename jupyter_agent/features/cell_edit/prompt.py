"""What an "Edit with Agent" run is asked, and how its answer becomes the cell's new source.

The run is short and read-only: it may look at the notebook (``notebook_read``) and the live
variables (``variables``, ``inspect``), then answers with the complete new source in one fenced
block. Nothing changes until the user accepts the diff in the cell.
"""

from __future__ import annotations

import re

from jupyter_agent.model.secrets import redact_secrets

MAX_STEPS = 6  # a look at a variable or two, then the answer: an edit is not a project
SYSTEM_PROMPT = (
    "You edit one cell of a Jupyter notebook for the user. You may read the notebook with notebook_read and "
    "the kernel's live variables with variables and inspect (they run no code). Change only what the "
    "instruction asks and keep everything else of the cell as it is. End with the complete new source of "
    "the cell in one fenced code block (```python or ```markdown), and nothing after it."
)
NO_SOURCE = "The agent's answer had no code block with the cell's new source."
_FENCE = re.compile(r"```[\w+-]*[^\S\n]*\n(.*?)(?:\n)?```", re.DOTALL)


def edit_prompt(instruction: str, cell_id: str, source: str, cell_type: str, generate: bool) -> str:
    """The user message of the run (secrets in the cell redacted, as in every request)."""
    if generate:
        task = f"Write a new {cell_type} cell (id {cell_id}) for this instruction:\n{instruction}"
        current = "The cell is empty; the cells above it are in the notebook (notebook_read)."
    else:
        task = f"Edit the {cell_type} cell {cell_id} as instructed:\n{instruction}"
        current = f"Its current source:\n```{'python' if cell_type == 'code' else 'markdown'}\n{source}\n```"
    return redact_secrets(f"{task}\n\n{current}")


def proposed_source(answer: str) -> str:
    """The last fenced block of the answer: the cell's new source. ``ValueError`` without one."""
    blocks: list[str] = _FENCE.findall(answer)
    if not blocks:
        raise ValueError(NO_SOURCE)
    return blocks[-1]
