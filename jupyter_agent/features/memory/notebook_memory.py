"""Memory for a notebook's turns, opt-in: until it is enabled, every method does nothing.

The memory feature (``feature.py``) builds one per turn from ``%%agent --memory`` /
``AgentMagics.memory``:

    memory = NotebookMemory(memory_store(session), enabled=True)
    tools = memory.tools(on_change=changed)                    # [] when off
    section = memory.step_section()                            # "" when off
    ...
    changes = await memory.after_turn(stream_fn, model, added)
    changed(*changes)                                          # a MemorySavedEvent; each change has .undo()

When off, nothing touches the disk: no folder, no index, no extraction request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from jupyter_agent.features.memory.extraction import extract_memories
from jupyter_agent.features.memory.prompt import memory_step_section
from jupyter_agent.features.memory.store import MemoryChange, MemoryStore
from jupyter_agent.features.memory.tool import memory_tool
from jupyter_agent.loop import AbortSignal, AgentTool
from jupyter_agent.messages import Message, Usage
from jupyter_agent.model import Model, StreamFn, StreamOptions


class NotebookMemory:
    def __init__(self, store: MemoryStore, *, enabled: bool = False) -> None:
        self.store = store
        # Off by default: remembering across sessions is the user's choice, not the agent's.
        self.enabled = enabled

    @classmethod
    def for_notebook(cls, notebook_path: str | Path, *, enabled: bool = False) -> "NotebookMemory":
        return cls(MemoryStore.for_notebook(notebook_path), enabled=enabled)

    def step_section(self) -> str:
        return memory_step_section(self.store) if self.enabled else ""

    def tools(self, on_change: Callable[[MemoryChange], object] | None = None) -> list[AgentTool]:
        return [memory_tool(self.store, on_change)] if self.enabled else []

    async def after_turn(
        self,
        stream_fn: StreamFn,
        model: Model,
        turn_messages: Sequence[Message],
        *,
        stream_options: StreamOptions | None = None,
        signal: AbortSignal | None = None,
        on_usage: Callable[[Usage], object] | None = None,
    ) -> list[MemoryChange]:
        """The turn's durable facts, saved; ``[]`` without a request when memory is off.

        ``options`` go to ``extract_memories`` (``stream_options``, ``signal``, ``on_usage``).
        """
        if not self.enabled:
            return []
        return await extract_memories(
            stream_fn, model, turn_messages, self.store, stream_options=stream_options, signal=signal, on_usage=on_usage
        )


__all__ = ["NotebookMemory"]
