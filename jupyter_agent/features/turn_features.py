"""``TurnFeatures``: the features of one turn, opened from the registry in its order.

The runner's one handle on features: it opens every enabled feature (``open``), lets them change
the run (``amend``), waits for their slow work (``start``), builds the run's tools and system
prompt from the toolset's and theirs (``tools``, ``system``), gives the run its per-step hook
(``prepare_step``: the step context of every feature, and a new tool list when one changed), and
tells them when the run exists, when it ended and when Stop was pressed.

Every feature's hook runs in registry order; a feature whose hook raises fails the turn as any
other part of it would (the runner shows the error), but a feature cannot stop the others from
hearing ``stop``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Sequence

from jupyter_agent.features.feature import Feature, FeatureTurn, RunPlan, TurnContext
from jupyter_agent.loop import AgentTool
from jupyter_agent.runtime import StepContext, StepOverrides
from jupyter_agent.tools.step_context import compose_sections

if TYPE_CHECKING:
    from jupyter_agent.messages import Message
    from jupyter_agent.runtime import AgentRun, RunResult
    from jupyter_agent.runtime.limits import Hook

TOOLSET = ""  # who offers the toolset's tools, in ``offered()``
_log = logging.getLogger(__name__)


class TurnFeatures:
    def __init__(self, base_tools: Sequence[AgentTool], opened: Sequence[tuple[str, FeatureTurn]]) -> None:
        self.base_tools = list(base_tools)
        self.opened = list(opened)
        self._tools_changed = False  # once a feature's tools changed, every step sends the current list
        self._wraps: dict[int, tuple[AgentTool, AgentTool]] = {}  # id(tool) -> (tool, wrapped): made once
        self._run_tools: set[int] = set()  # ids of the wrapped tools the run started with

    @classmethod
    def open(cls, features: Sequence[Feature], context: TurnContext, base_tools: Sequence[AgentTool]) -> TurnFeatures:
        """Opens each feature the settings enable, in order; one that is ``alone`` ends the list."""
        turn = cls(base_tools, [])
        context = context.with_tools(base_tools)
        context = _with_turn_tools(context, turn.offered)
        for feature in features:
            if not feature.enabled(context.settings):
                continue
            opened = feature.open(context)
            turn.opened.append((feature.name, opened))
            if opened.alone:
                break
            context = context.with_tools([*context.tools, *opened.tools])
        return turn

    @property
    def turns(self) -> list[FeatureTurn]:
        return [opened for _name, opened in self.opened]

    def amend(self, plan: RunPlan) -> RunPlan:
        for opened in self.turns:
            plan = opened.amend(plan)
        return plan

    async def start(self) -> None:
        for opened in self.turns:
            await opened.start()

    def offered(self) -> dict[str, list[AgentTool]]:
        """The turn's tools by who offers them, unwrapped (``TOOLSET`` for the toolset's)."""
        offered = {TOOLSET: list(self.base_tools)}
        for name, opened in self.opened:
            offered[name] = list(opened.tools)
        return offered

    def tools(self) -> list[AgentTool]:
        """Every tool of the turn, each passed through every feature's ``wrap`` (once per tool)."""
        return [self._wrapped(tool) for tools in self.offered().values() for tool in tools]

    def run_tools(self) -> list[AgentTool]:
        """``tools()`` as the run starts with them: later steps name these instead of sending them again."""
        tools = self.tools()
        self._run_tools = {id(tool) for tool in tools}
        return tools

    def system(self, base: str) -> str:
        """``base`` and every feature's system section, separated by blank lines."""
        sections = [section for opened in self.turns if (section := opened.system_section())]
        return "\n\n".join([base, *sections]) if sections else base

    def step_section(self) -> str:
        return compose_sections([opened.step_section for opened in self.turns]) or ""

    def prepare_step(self) -> Hook:
        """The run's ``prepare_step``: every feature's step section as the step context, and the
        current tools once a feature's tools changed (a server's new list)."""

        async def prepare_step(context: StepContext) -> StepOverrides:
            for opened in self.turns:
                if await opened.before_step():
                    self._tools_changed = True
            tools: list[str | AgentTool] | None = None
            if self._tools_changed:
                tools = [tool.name if id(tool) in self._run_tools else tool for tool in self.tools()]
            return StepOverrides(tools=tools, step_context=compose_sections([opened.step_section for opened in self.turns]))

        return prepare_step

    def attach(self, run: AgentRun) -> None:
        for opened in self.turns:
            opened.attach(run)

    async def after(self, result: RunResult, added: Sequence[Message]) -> None:
        for opened in self.turns:
            await opened.after(result, added)

    def stop(self) -> None:
        for name, opened in self.opened:
            try:
                opened.stop()
            except Exception:  # noqa: BLE001 - every feature must hear Stop
                _log.exception("feature %s failed to stop", name)

    def _wrapped(self, tool: AgentTool) -> AgentTool:
        known = self._wraps.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
        wrapped = tool
        for opened in self.turns:
            wrapped = opened.wrap(wrapped)
        self._wraps[id(tool)] = (tool, wrapped)
        return wrapped


def _with_turn_tools(context: TurnContext, offered: Callable[[], dict[str, list[AgentTool]]]) -> TurnContext:
    import dataclasses

    return dataclasses.replace(context, turn_tools=offered)


__all__ = ["TOOLSET", "TurnFeatures"]
