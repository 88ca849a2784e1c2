"""Plan, memory and delegation for one notebook turn.

* the task plan (always on): loaded from the session's ``<name>.plan.json``, saved on every change,
  shown live by the renderer and re-sent in every request's step context (after the history,
  never stored in it), so it survives resume and compaction;
* memory (opt-in: ``--memory`` / ``AgentMagics.memory``): the ``memory`` tool, the index in the
  step context every step, and after the turn one extraction request whose changes the renderer
  shows with an undo;
* delegation (opt-in: ``--delegate`` / ``AgentMagics.delegate``): the ``delegate`` tool, its
  children's events shown by the renderer as nested cards and recorded, each child in a session
  file of its own beside the parent's (``<session>.children/``).

The system prompt stays the same from step to step and turn to turn (a provider caches it with
the tools and the history): a plan item ticked off or a note saved changes only the step context.

The renderer surface used here: ``show_plan(plan)``, ``memory_saved(*changes)``,
``child_event(child_id, event)`` and ``note(text)``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from jupyter_agent.features.delegation.tool import DelegationContext, delegate_tool
from jupyter_agent.features.delegation.transcripts import ChildTranscripts
from jupyter_agent.features.memory.notebook_memory import NotebookMemory
from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryStore
from jupyter_agent.features.plan.file import PlanFile
from jupyter_agent.features.plan.prompt import plan_step_section
from jupyter_agent.features.plan.state import PlanState
from jupyter_agent.features.plan.tool import plan_tool
from jupyter_agent.loop import AbortController, AgentTool
from jupyter_agent.tools.step_context import step_context_hook

SAVING_MEMORY = "Saving what this turn taught to memory…"
# A stopped or failed turn taught nothing reliable, and the user asked it to end: no extra request.
_NO_EXTRACTION_AFTER = frozenset({"aborted", "error"})
_log = logging.getLogger(__name__)


def memory_store(session: Any) -> MemoryStore:
    """The notebook's memory: ``<notebook stem>.agent/memory/``, shared by all its sessions."""
    return MemoryStore(session.path.parent / MEMORY_FOLDER)


@dataclass
class TurnFeatures:
    plan: PlanState
    memory: NotebookMemory
    renderer: Any
    tools: list[AgentTool] = field(default_factory=list)  # plan, memory and delegate tools of this turn
    delegation: DelegationContext | None = None
    child_transcripts: ChildTranscripts | None = None  # each sub-agent's session file
    _extraction: AbortController | None = None

    @classmethod
    def build(cls, session: Any, settings: Any, renderer: Any, resolved: Any, base_tools: list[AgentTool]) -> "TurnFeatures":
        plan = PlanFile(session.path).state()
        plan.on_change(renderer.show_plan)
        if plan and not all(item.status == "done" for item in plan.items):
            renderer.show_plan(plan)  # an unfinished plan from an earlier turn is what this one continues
        memory = NotebookMemory(memory_store(session), enabled=settings.memory)
        features = cls(plan=plan, memory=memory, renderer=renderer)
        if tuple(settings.tools) == ("none",):
            return features  # "--tools none": no tools at all, the plan's included
        features.tools = [plan_tool(plan), *memory.tools(on_change=_quietly(features._memory_changed))]
        if settings.delegate:
            transcripts = features.child_transcripts = ChildTranscripts(session.path)

            def on_child_event(child_id: str, event: Any) -> None:
                transcripts.record(child_id, event)
                renderer.child_event(child_id, event)

            features.delegation = DelegationContext(
                resolved.model,
                resolved.stream_fn or _default_stream_fn(),
                tools=base_tools,
                on_child_event=on_child_event,
            )
            features.tools.append(delegate_tool(features.delegation))
        return features

    def prepare_step(self) -> Callable:
        """The ``prepare_step`` of the turn (``turn_step_context``)."""
        return turn_step_context(self.plan, self.memory)

    def attach(self, run: Any) -> None:
        if self.delegation is not None:
            self.delegation.attach(run)

    async def after_turn(self, result: Any, prior_count: int, resolved: Any, store: Any) -> None:
        """Memory extraction from the messages this turn added; the renderer shows what was saved."""
        if not self.memory.enabled or result.reason in _NO_EXTRACTION_AFTER:
            return
        self._extraction = AbortController()
        model = resolved.model
        note = _quietly(self.renderer.note)
        note(SAVING_MEMORY)
        try:
            changes = await self.memory.after_turn(
                resolved.stream_fn or _default_stream_fn(),
                model,
                result.messages[prior_count:],
                signal=self._extraction.signal,
                on_usage=lambda usage: store.record_usage(usage, model=model, purpose="memory"),
            )
        finally:
            note("")
            self._extraction = None
        if changes:
            _quietly(self._memory_changed)(*changes)
        store.sync()

    def _memory_changed(self, *changes: Any) -> None:
        from jupyter_agent.features.memory.undo_log import MemoryUndoLog

        MemoryUndoLog(self.memory.store).record(*changes)  # %agent memory undo, after a reopen too
        self.renderer.memory_saved(*changes)

    def stop(self) -> None:
        """Stop (or Interrupt) while memory is being extracted: abandon the request."""
        if self._extraction is not None:
            self._extraction.abort()


def turn_step_context(plan: PlanState, memory: NotebookMemory) -> Callable:
    """``prepare_step`` giving every step of a turn its context: the current plan and the memory index."""
    return step_context_hook([lambda: plan_step_section(plan), memory.step_section])


def _quietly(show: Callable[..., Any]) -> Callable[..., None]:
    """A renderer call that cannot fail the turn: the memory was saved whether or not it is shown."""

    def call(*args: Any) -> None:
        try:
            show(*args)
        except Exception:  # noqa: BLE001
            _log.exception("the renderer could not show a memory change")

    return call


def _default_stream_fn() -> Any:
    from jupyter_agent.runtime.options import default_stream_fn

    return default_stream_fn()


__all__ = ["SAVING_MEMORY", "TurnFeatures", "memory_store", "turn_step_context"]
