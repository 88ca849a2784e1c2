"""The ``memory`` tool: list, read, write and delete the notebook's durable facts by name.

The index is already in the system prompt; the tool reads full entries and changes them. Every
change is reported to ``on_change`` (a ``MemoryChange`` with ``undo()``), so the panel can show
"saved" with an undo button, and rides in the result's ``details``.
"""

from __future__ import annotations

from typing import Callable, Literal

from pydantic import BaseModel, Field

from jupyter_agent.features.memory.store import MemoryChange, MemoryRefused, MemoryStore
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.tools.errors import ToolError

DESCRIPTION = (
    "Long-term memory shared by every session of this notebook. The index of notes is in the "
    "system prompt. action=read (name): a note in full; action=list: every note with its summary; "
    "action=write (name, content, optional summary): save or replace a durable fact such as a user "
    "preference, a dataset quirk or a decision — never secrets or passing results; "
    "action=delete (name): remove a wrong or obsolete note."
)


class MemoryArgs(BaseModel):
    action: Literal["list", "read", "write", "delete"]
    name: str | None = Field(default=None, description="The note's name (a short slug, e.g. 'sales-date-format').")
    content: str | None = Field(default=None, description="write: the complete fact, a few sentences.")
    summary: str | None = Field(default=None, description="write: one line for the index (default: the first line).")


def memory_tool(store: MemoryStore, on_change: Callable[[MemoryChange], object] | None = None) -> AgentTool:
    async def execute(args: MemoryArgs, signal: AbortSignal) -> ToolOutput | str:
        if args.action == "list":
            return _listing(store)
        if not args.name or not args.name.strip():
            raise ToolError(f"action={args.action} needs the note's name.")
        if args.action == "read":
            fact = store.read(args.name)
            if fact is None:
                raise ToolError(_missing(store, args.name))
            return f"# {fact.name}\n{fact.summary}\n(updated {fact.updated or 'unknown'})\n\n{fact.content}"
        if args.action == "write":
            if not args.content or not args.content.strip():
                raise ToolError("action=write needs content: the complete fact.")
            try:
                change = store.write(args.name, args.content, args.summary)
            except MemoryRefused as refused:
                raise ToolError(str(refused)) from None
        else:
            removed = store.delete(args.name)
            if removed is None:
                raise ToolError(_missing(store, args.name))
            change = removed
        if on_change is not None:
            on_change(change)
        return ToolOutput(
            content=f"Memory note {change.name!r} {change.kind}.",
            details={"memory_change": {"name": change.name, "kind": change.kind, "summary": change.summary}},
        )

    # It writes files beside the notebook, so a permission policy may gate it like other writes.
    return AgentTool(
        name="memory",
        description=DESCRIPTION,
        parameters=MemoryArgs,
        execute=execute,
        label="Memory",
        # Listing and reading notes changes nothing: only writes and deletes ask for approval.
        read_only_call=lambda args: args.action in ("list", "read"),
    )


def _listing(store: MemoryStore) -> str:
    facts = store.list()
    if not facts:
        return "No memory notes yet."
    return "\n".join(f"- {fact.name}: {fact.summary} (updated {fact.updated or 'unknown'})" for fact in facts)


def _missing(store: MemoryStore, name: str) -> str:
    names = store.names()
    known = ", ".join(names) if names else "none yet"
    return f"No memory note named {name!r}. Notes: {known}."


__all__ = ["memory_tool"]
