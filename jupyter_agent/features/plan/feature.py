"""The task plan as a feature of every turn: its tool, its step-context section, its events.

The plan the branch the turn continues left (``<name>.plan.json``, rolled back when a re-run cell
branched the session), saved on every change; an unfinished plan from an earlier turn is shown
when the turn starts (it is what this one continues). Every change goes
out as a ``PlanChangedEvent``; the plan reaches the model in every step's context, never in the
system prompt or the history. ``--tools none`` leaves the tool out, not the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from jupyter_agent.features.feature import Feature, FeatureEvent, FeatureTurn, TurnContext
from jupyter_agent.features.plan.file import PlanFile
from jupyter_agent.features.plan.prompt import plan_step_section
from jupyter_agent.features.plan.state import PlanState
from jupyter_agent.features.plan.tool import plan_tool

if TYPE_CHECKING:
    from jupyter_agent.features.settings import TurnSettings


@dataclass
class PlanChangedEvent(FeatureEvent):
    """The plan as it is now (a copy: later changes come as new events)."""

    plan: PlanState
    type: Literal["plan_changed"] = field(default="plan_changed", init=False)


class PlanTurn(FeatureTurn):
    """The plan is read in ``start``: by then a re-run cell has branched the session, and the plan
    is the one the branch the turn continues left (``PlanFile.state`` of its tool results)."""

    def __init__(self, file: PlanFile, context: TurnContext) -> None:
        self.plan = PlanState()
        super().__init__([plan_tool(self.plan)] if tuple(context.settings.tools) != ("none",) else [])
        self.file, self.context = file, context

    async def start(self) -> None:
        # The plan of the branch the turn continues.
        loaded = self.file.state(self.context.session.store.tool_results_newest_first("plan"))
        self.plan.replace(list(loaded.items))  # no listener yet: neither saved again nor shown as a change
        self.plan.on_change(self.file.save)
        context = self.context
        self.plan.on_change(lambda changed: context.emit(PlanChangedEvent(PlanState(changed.items))))
        if self.plan and not all(item.status == "done" for item in self.plan.items):
            context.emit(PlanChangedEvent(PlanState(self.plan.items)))  # an unfinished plan: what this turn continues

    def step_section(self) -> str:
        return plan_step_section(self.plan)


class PlanFeature(Feature):
    name: ClassVar[str] = "plan"
    view: ClassVar[str] = "jupyter_agent.features.plan.view"

    def enabled(self, settings: TurnSettings) -> bool:
        return True  # always on: a turn that makes no plan costs nothing

    def open(self, context: TurnContext) -> PlanTurn:
        return PlanTurn(PlanFile(context.session.path), context)


__all__ = ["PlanChangedEvent", "PlanFeature", "PlanTurn"]
