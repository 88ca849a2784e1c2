"""The plan in every request's step context (after the cached prefix): re-sent with every step, so it survives context compaction."""

from __future__ import annotations

from jupyter_agent.features.plan.state import PlanState, render_plan_text


def plan_step_section(state: PlanState) -> str:
    """The current plan for the step context; empty when there is none."""
    if not state:
        return ""
    return (
        "## Current task plan\n"
        "Your checklist, kept with the `plan` tool (it is repeated here every step, so it survives "
        "context compaction). Keep it current: mark an item in_progress when you start it and "
        "done as soon as it is finished.\n\n" + render_plan_text(state)
    )


__all__ = ["plan_step_section"]
