"""A ``prepare_step`` hook that rebuilds the system prompt every step from live sections.

The task plan and the memory index change during a run and must reach the model even after a
compaction dropped the tool results that showed them. Re-sending them in the system prompt of
every request does that. A section that did not change yields the same prompt, so the provider's
prompt cache still hits; only a step after a change pays for a fresh prefix.

    prepare_step = system_sections_hook(system, [lambda: plan_system_section(plan), memory.system_section])
    run_agent(..., system=system, prepare_step=prepare_step)
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Callable, Sequence

from jupyter_agent.runtime import StepContext, StepOverrides
from jupyter_agent.runtime.limits import Hook

Section = Callable[[], str]


def compose_system(base: str | None, sections: Sequence[Section]) -> str | None:
    """``base`` followed by every non-empty section, separated by blank lines."""
    parts = [base] if base else []
    parts += [text.strip() for text in (section() for section in sections) if text and text.strip()]
    return "\n\n".join(parts) if parts else base


def system_sections_hook(base: str | None, sections: Sequence[Section], then: Hook | None = None) -> Hook:
    """``prepare_step`` giving every step ``base`` + sections; ``then`` (another ``prepare_step``)
    still decides the rest, and a ``system`` it returns replaces ``base``."""
    sections = tuple(sections)

    async def prepare_step(context: StepContext) -> StepOverrides:
        chosen: object = None
        if then is not None:
            chosen = then(context)
            if inspect.isawaitable(chosen):
                chosen = await chosen
        if chosen is not None and not isinstance(chosen, StepOverrides):
            raise ValueError("prepare_step must return StepOverrides or None")
        overrides = chosen or StepOverrides()
        system = compose_system(overrides.system if overrides.system is not None else base, sections)
        return replace(overrides, system=system)

    return prepare_step


__all__ = ["compose_system", "system_sections_hook"]
