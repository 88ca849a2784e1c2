"""The offline demo model's edits: deterministic and labelled, so the quick start shows the review.

It adds a comment naming the instruction on top of the cell (or writes a small cell that prints
it, for "generate"): enough to see the inline diff, Accept, Reject and ``%agent undo`` work.
"""

from __future__ import annotations

LABEL = "# Edited by the offline demo model (no LLM connected)"


def demo_edit(instruction: str, source: str, cell_type: str, generate: bool) -> str:
    """The demo's answer, a Markdown reply ending in the fenced new source."""
    first_line = instruction.strip().splitlines()[0] if instruction.strip() else "edit"
    if cell_type == "markdown":
        new = f"<!-- Edited by the offline demo model: {first_line} -->\n{source}"
        fence = "markdown"
    elif generate:
        new = f"# Written by the offline demo model (no LLM connected): {first_line}\nprint({first_line!r})"
        fence = "python"
    else:
        new = f"{LABEL}: {first_line}\n{source}"
        fence = "python"
    return f"**Offline demo model**: a scripted edit.\n\n```{fence}\n{new}\n```"
