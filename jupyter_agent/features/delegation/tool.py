"""The ``delegate`` tool: sub-tasks run by child agents with fresh contexts.

Each child gets only its task text and a child system prompt — none of the parent's messages —
and, by default, the parent's read-only tools (never ``plan``, ``memory`` or ``delegate``: the
parent's bookkeeping is not the child's, and children do not fan out further). Its step and
spend budgets come from what the parent has left; its usage is charged to the parent as it
happens; it runs on the parent's abort signal, so interrupting the parent stops it. Its final
text is the tool result.

One call may carry several independent tasks: the loop runs a step's tool calls one after the
other, so this is how sub-agents run side by side. At most ``max_concurrent`` (3) children of a
context run at once; further ones wait for a slot (see ``ChildJob.run`` for why).

    delegation = DelegationContext(model, stream_fn, tools=tools, on_child_event=panel.child_event)
    run = run_agent(model, prompt, tools=[*tools, delegate_tool(delegation)], ...)
    delegation.attach(run)       # before the first step; the tool reads it when it runs
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass, field
from typing import Callable, Sequence

from pydantic import BaseModel, Field, field_validator, model_validator

from jupyter_agent.features.delegation.child import (
    REFUSED,
    ChildJob,
    ChildOutcome,
    ChildQueuedEvent,
    ChildRunEvent,
    ChildStartEvent,
)
from jupyter_agent.features.delegation.spend import SpendPool
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.messages import JsonObject
from jupyter_agent.model import Model, StreamFn, StreamOptions
from jupyter_agent.runtime import AgentRun, PermissionPolicy, Rates
from jupyter_agent.tools.errors import ToolError

CHILD_SYSTEM_PROMPT = (
    "You are a sub-agent doing one sub-task for another agent. You start with no prior "
    "conversation: the task below is all you are told. Use your tools to do it, then reply with "
    "a concise, self-contained report of what you found; it is handed verbatim to the agent that "
    "delegated the task. You cannot ask questions: if the task is ambiguous, state your assumption."
)
# A sub-task is meant to be small; nobody watches a child closely, so a runaway one must end.
DEFAULT_CHILD_MAX_STEPS = 20
MAX_CONCURRENT_CHILDREN = 3
# More tasks than this in one call is a plan, not a delegation.
MAX_TASKS_PER_CALL = 8
# The point of a child is a short report: a long one would flood the parent's context.
CHILD_TEXT_MAX_CHARS = 20_000
PARENT_ONLY_TOOLS = frozenset({"plan", "memory", "delegate"})
NOT_ATTACHED = "Delegation is unavailable: the delegate tool is not attached to a run."

_STOP_NOTES = {
    "max_steps": "it used all its steps before finishing",
    "max_output": "its answer hit the output limit",
    "max_context": "its context filled up",
    "stopped_by_caller": "it was stopped",
    "aborted": "it was interrupted",
}
_log = logging.getLogger(__name__)

ChildEventSink = Callable[[str, ChildRunEvent], object]


@dataclass
class DelegationContext:
    model: Model
    stream_fn: StreamFn
    tools: Sequence[AgentTool] = ()  # the parent's tools
    child_tools: Sequence[AgentTool] | None = None  # None: the read-only ones of ``tools``
    system: str = CHILD_SYSTEM_PROMPT
    max_child_steps: int = DEFAULT_CHILD_MAX_STEPS
    max_child_spend_usd: float | None = None  # a cap below the parent's remaining spend, if wanted
    max_concurrent: int = MAX_CONCURRENT_CHILDREN
    rates: Rates | None = None  # price children like the parent
    permissions: PermissionPolicy | None = None  # for mutating child tools, if any were given
    stream_options: StreamOptions | None = None
    run: AgentRun | None = None  # the parent run, set once run_agent returned
    on_child_event: ChildEventSink | None = None
    active: dict[str, ChildJob] = field(default_factory=dict, init=False)  # child id -> running child
    spend: SpendPool = field(default_factory=SpendPool, init=False)  # shared by the children running at once

    def __post_init__(self) -> None:
        for name in ("max_child_steps", "max_concurrent"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer")
        self.slots = asyncio.Semaphore(self.max_concurrent)
        self._ids = itertools.count(1)

    def attach(self, run: AgentRun) -> None:
        self.run = run

    def tools_for_child(self) -> list[AgentTool]:
        if self.child_tools is not None:
            return list(self.child_tools)
        return [tool for tool in self.tools if tool.read_only and tool.name not in PARENT_ONLY_TOOLS]

    def new_child_id(self) -> str:
        return f"child-{next(self._ids)}"

    def notify(self, child_id: str, event: ChildRunEvent) -> None:
        if self.on_child_event is None:
            return
        try:
            self.on_child_event(child_id, event)
        except Exception:  # noqa: BLE001 - a broken display must not break the sub-agent
            _log.exception("on_child_event failed for %s", child_id)


DESCRIPTION = (
    "Hand independent sub-tasks to sub-agents, each starting with a fresh, empty context and "
    "read-only tools (they can look, not change). Use it for self-contained work whose details "
    "you do not need in your own context, e.g. 'profile the columns a, b, c of df and report "
    "types, nulls and oddities' or 'find where the data loader is defined'. Write each task so "
    "it stands alone: the sub-agent sees nothing of this conversation. Several tasks in one call "
    "run side by side (3 at a time). Each result is the sub-agent's final report."
)


class DelegateArgs(BaseModel):
    tasks: list[str] = Field(
        min_length=1,
        max_length=MAX_TASKS_PER_CALL,
        description="One or more self-contained sub-tasks; each runs in its own sub-agent.",
    )

    @model_validator(mode="before")
    @classmethod
    def _single_task(cls, data: object) -> object:
        # Models often name the singular: {"task": "..."} means one task.
        if isinstance(data, dict) and "tasks" not in data and isinstance(data.get("task"), str):
            return {"tasks": [data["task"]]}
        return data

    @field_validator("tasks")
    @classmethod
    def _not_blank(cls, tasks: list[str]) -> list[str]:
        cleaned = [task.strip() for task in tasks]
        if not all(cleaned):
            raise ValueError("every task needs text")
        return cleaned


def delegate_tool(parent: DelegationContext) -> AgentTool:
    async def execute(args: DelegateArgs, signal: AbortSignal) -> ToolOutput:
        run = parent.run
        if run is None:
            raise ToolError(NOT_ATTACHED)
        jobs = [ChildJob(parent, run, task, index) for index, task in enumerate(args.tasks)]
        async with asyncio.TaskGroup() as group:
            running = [group.create_task(job.run(signal)) for job in jobs]
        outcomes = [task.result() for task in running]
        text = report(outcomes)
        if all(outcome.reason in (REFUSED, "error") for outcome in outcomes):
            raise ToolError(text)
        return ToolOutput(content=text, details={"children": [_detail(outcome) for outcome in outcomes]})

    # As read-only as the children's tools: with the default set there is nothing to approve
    # (their spend is bounded by the run's own budget); mutating child tools make it gated.
    read_only = all(tool.read_only for tool in parent.tools_for_child())
    return AgentTool(
        name="delegate",
        description=DESCRIPTION,
        parameters=DelegateArgs,
        execute=execute,
        label="Delegate",
        read_only=read_only,
    )


def report(outcomes: Sequence[ChildOutcome]) -> str:
    """The tool result: each child's final text, with a note when it did not finish normally."""
    parts = [_one_report(outcome) for outcome in outcomes]
    if len(parts) == 1:
        return parts[0]
    return "\n\n".join(
        f"### Sub-task {number}: {_first_line(outcome.task)}\n{part}"
        for number, (outcome, part) in enumerate(zip(outcomes, parts), start=1)
    )


def _one_report(outcome: ChildOutcome) -> str:
    if outcome.reason == REFUSED:
        return outcome.text
    if outcome.reason == "error":
        return f"The sub-agent failed: {outcome.error or 'unknown error'}"
    text = outcome.text.strip() or "(the sub-agent gave no answer)"
    if len(text) > CHILD_TEXT_MAX_CHARS:
        text = text[:CHILD_TEXT_MAX_CHARS] + f"\n[... {len(text) - CHILD_TEXT_MAX_CHARS} characters cut]"
    if outcome.out_of_spend:
        note = "the spend budget ran out"
    elif outcome.reason == "completed":
        return text
    else:
        note = _STOP_NOTES.get(outcome.reason, outcome.reason)
    return f"{text}\n\n[The sub-agent stopped early after {outcome.steps} step(s): {note}. The text above is what it had.]"


def _first_line(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _detail(outcome: ChildOutcome) -> JsonObject:
    return {
        "child_id": outcome.child_id,
        "task": outcome.task,
        "reason": outcome.reason,
        "steps": outcome.steps,
        "spend_usd": outcome.usage.spend_usd,
    }


__all__ = [
    "CHILD_SYSTEM_PROMPT",
    "ChildQueuedEvent",
    "ChildStartEvent",
    "DEFAULT_CHILD_MAX_STEPS",
    "DelegateArgs",
    "DelegationContext",
    "MAX_CONCURRENT_CHILDREN",
    "delegate_tool",
    "report",
]
