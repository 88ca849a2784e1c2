"""A ``prepare_step`` hook that gives every step a step context built from live sections.

The task plan and the memory index change during a run and must reach the model even after a
compaction dropped the tool results that showed them. Re-sending them with every request does
that. They travel as the request's step context (``StepOverrides.step_context``), after the
history, not in the system prompt: a plan that changed mid-turn then leaves the system prompt and
the history (the prefix a provider caches) as they were, and nothing of it is written into the
history, so it neither piles up turn after turn nor appears in the session file as something the
user said.

    prepare_step = step_context_hook([lambda: plan_step_section(plan), memory.step_section])
    run_agent(..., system=system, prepare_step=prepare_step)
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Callable, Sequence

from jupyter_agent.runtime import StepContext, StepOverrides
from jupyter_agent.runtime.limits import Hook

Section = Callable[[], str]
NOT_STEP_OVERRIDES = "prepare_step must return StepOverrides or None"


def compose_sections(sections: Sequence[Section], first: str | None = None) -> str | None:
    """``first`` and every non-empty section, separated by blank lines; ``None`` when all are empty."""
    parts = [text.strip() for text in (first, *(section() for section in sections)) if text and text.strip()]
    return "\n\n".join(parts) if parts else None


def step_context_hook(sections: Sequence[Section], then: Hook | None = None) -> Hook:
    """``prepare_step`` giving every step the sections, read afresh, as its step context; ``then``
    (another ``prepare_step``) still decides the rest, and a step context it returns comes first."""
    sections = tuple(sections)

    async def prepare_step(context: StepContext) -> StepOverrides:
        chosen: object = None
        if then is not None:
            chosen = then(context)
            if inspect.isawaitable(chosen):
                chosen = await chosen
        if chosen is not None and not isinstance(chosen, StepOverrides):
            raise ValueError(NOT_STEP_OVERRIDES)
        overrides = chosen or StepOverrides()
        return replace(overrides, step_context=compose_sections(sections, overrides.step_context))

    return prepare_step


__all__ = ["NOT_STEP_OVERRIDES", "Section", "compose_sections", "step_context_hook"]
