"""Memory as a feature of the turns that enable it (``--memory`` / ``AgentMagics.memory``).

The ``memory`` tool, the index in every step's context and, after a run that was neither stopped
nor failed, one extraction request whose changes are saved, logged for ``%agent memory undo`` and
shown as a ``MemorySavedEvent`` (each change has its own undo).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal, Sequence

from jupyter_agent.features.feature import Feature, FeatureEvent, FeatureTurn, TurnContext
from jupyter_agent.features.memory.notebook_memory import NotebookMemory
from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryChange, MemoryStore
from jupyter_agent.features.memory.undo_log import MemoryUndoLog
from jupyter_agent.loop import AbortController
from jupyter_agent.model import StreamFn

if TYPE_CHECKING:
    from jupyter_agent.features.feature import TurnSession
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.messages import Message
    from jupyter_agent.runtime import RunResult

SAVING_MEMORY = "Saving what this turn taught to memory…"
# A stopped or failed turn taught nothing reliable, and the user asked it to end: no extra request.
_NO_EXTRACTION_AFTER = frozenset({"aborted", "error"})
_log = logging.getLogger(__name__)


@dataclass
class MemorySavedEvent(FeatureEvent):
    """Notes the turn saved, changed or deleted; each change can be undone (``change.undo()``)."""

    changes: tuple[MemoryChange, ...]
    type: Literal["memory_saved"] = field(default="memory_saved", init=False)


def memory_store(session: TurnSession) -> MemoryStore:
    """The notebook's memory: ``<notebook stem>.agent/memory/``, shared by all its sessions."""
    return MemoryStore(session.path.parent / MEMORY_FOLDER)


class MemoryTurn(FeatureTurn):
    def __init__(self, context: TurnContext) -> None:
        super().__init__()
        self.context = context
        self.memory = NotebookMemory(memory_store(context.session), enabled=True)
        if tuple(context.settings.tools) != ("none",):
            self.tools = self.memory.tools(on_change=self._changed)
        self._extraction: AbortController | None = None

    def step_section(self) -> str:
        return self.memory.step_section()

    async def after(self, result: RunResult, added: Sequence[Message]) -> None:
        """The extraction request over the messages this turn added; the changes are shown."""
        if result.reason in _NO_EXTRACTION_AFTER:
            return
        resolved = await self.context.model()
        store = self.context.session.store
        self._extraction = AbortController()
        self.context.note(SAVING_MEMORY)
        try:
            changes = await self.memory.after_turn(
                resolved.stream_fn or _default_stream_fn(),
                resolved.model,
                added,
                signal=self._extraction.signal,
                on_usage=lambda usage: store.record_usage(usage, model=resolved.model, purpose="memory"),
            )
        finally:
            self.context.note("")
            self._extraction = None
        if changes:
            self._changed(*changes)
        store.sync()

    def stop(self) -> None:
        """Stop (or Interrupt) while memory is being extracted: abandon the request."""
        if self._extraction is not None:
            self._extraction.abort()

    def _changed(self, *changes: MemoryChange) -> None:
        try:
            MemoryUndoLog(self.memory.store).record(*changes)  # %agent memory undo, after a reopen too
        except Exception:  # noqa: BLE001 - the notes are saved whether or not their undo is logged
            _log.exception("the memory undo log could not be written")
        self.context.emit(MemorySavedEvent(tuple(changes)))


def _default_stream_fn() -> StreamFn:
    from jupyter_agent.runtime.options import default_stream_fn

    return default_stream_fn()


class MemoryFeature(Feature):
    name: ClassVar[str] = "memory"
    view: ClassVar[str] = "jupyter_agent.features.memory.view"

    def enabled(self, settings: TurnSettings) -> bool:
        return settings.memory  # opt-in: remembering across sessions is the user's choice

    def open(self, context: TurnContext) -> MemoryTurn:
        return MemoryTurn(context)


__all__ = ["SAVING_MEMORY", "MemoryFeature", "MemorySavedEvent", "MemoryTurn", "memory_store"]
