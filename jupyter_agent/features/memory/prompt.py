"""The memory index in every request's step context (after the cached prefix), with how to use the ``memory`` tool."""

from __future__ import annotations

from jupyter_agent.features.memory.store import MemoryStore

MEMORY_INTRO = (
    "## Memory\n"
    "Durable notes kept across sessions with this notebook (user preferences, dataset quirks, "
    "decisions). Index, newest first:\n\n"
)
MEMORY_USAGE = (
    "\n\nRead a note in full with the `memory` tool before relying on its details. Save a new "
    "durable fact with it when you learn one, and delete a note that turned out wrong or obsolete."
)


def memory_step_section(store: MemoryStore) -> str:
    """The memory index for the step context (read afresh: a fact written mid-run shows next step)."""
    index = store.index_text() or "(no notes saved yet)"
    return MEMORY_INTRO + index + MEMORY_USAGE


__all__ = ["MEMORY_INTRO", "MEMORY_USAGE", "memory_step_section"]
