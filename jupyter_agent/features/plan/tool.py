"""The ``plan`` tool: the model sets the whole checklist or changes items by id.

A refused change (two items in progress, an unknown id, too many items) is a tool error that
shows the checklist as it still is, so the model can correct itself.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from jupyter_agent.features.plan.state import PlanError, PlanItemFields, PlanState, Status, render_plan_text
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.tools.errors import ToolError

DESCRIPTION = (
    "Keep an ordered checklist of the steps of a multi-step task. Set the whole list with "
    "`items` (each: text, optional id, status pending|in_progress|done), or change items by id "
    "with `updates`. Exactly one item may be in_progress at a time. Use it for tasks of three or "
    "more steps; skip it for simple questions. The result shows the checklist."
)


class PlanItemArgs(BaseModel):
    id: str | None = Field(default=None, description="Short id; defaults to the item's position (1, 2, ...).")
    text: str = Field(description="What to do, in a few words.")
    status: Status = "pending"


class PlanUpdateArgs(BaseModel):
    id: str = Field(description="Id of the item to change.")
    status: Status | None = None
    text: str | None = None


class PlanArgs(BaseModel):
    items: list[PlanItemArgs] | None = Field(default=None, description="The complete new checklist (replaces the old one).")
    updates: list[PlanUpdateArgs] | None = Field(default=None, description="Changes to existing items, by id.")

    @model_validator(mode="after")
    def _one_kind(self) -> "PlanArgs":
        if (self.items is None) == (self.updates is None):
            raise ValueError("give either items (the whole checklist) or updates (changes by id)")
        return self


def _change(update: PlanUpdateArgs) -> PlanItemFields:
    """``update.model_dump(exclude_none=True)``, typed."""
    change = PlanItemFields(id=update.id)
    if update.status is not None:
        change["status"] = update.status
    if update.text is not None:
        change["text"] = update.text
    return change


def plan_tool(state: PlanState) -> AgentTool:
    async def execute(args: PlanArgs, signal: AbortSignal) -> ToolOutput:
        try:
            if args.items is not None:
                state.replace([PlanItemFields(id=item.id, text=item.text, status=item.status) for item in args.items])
            else:
                state.update([_change(update) for update in args.updates or ()])
        except PlanError as refused:
            raise ToolError(f"{refused}\n\n{render_plan_text(state)}") from None
        return ToolOutput(content=render_plan_text(state), details=state.to_json())

    # Read-only: a checklist is the agent's own bookkeeping; asking approval for it would be noise.
    return AgentTool(name="plan", description=DESCRIPTION, parameters=PlanArgs, execute=execute, label="Plan", read_only=True)


__all__ = ["DESCRIPTION", "PlanArgs", "plan_tool"]
