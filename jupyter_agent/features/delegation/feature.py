"""Delegation as a feature of the turns that enable it (``--delegate`` / ``AgentMagics.delegate``).

The ``delegate`` tool runs sub-agents with fresh contexts and the turn's read-only tools (the MCP
servers' too with ``mcp_subagents``), within the run's budget. Each child's events go out as
``ChildEvent``s and into a session file of its own beside the parent's (``<session>.children/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from jupyter_agent.features.delegation.tool import DelegationContext, delegate_tool
from jupyter_agent.features.delegation.transcripts import ChildTranscripts
from jupyter_agent.features.feature import Feature, FeatureEvent, FeatureTurn, TurnContext
from jupyter_agent.loop import AgentTool

if TYPE_CHECKING:
    from jupyter_agent.features.delegation.child import ChildRunEvent
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.model import StreamFn
    from jupyter_agent.runtime import AgentRun

# Who offers the tools a sub-agent may get only when the settings say so.
MCP_FEATURE = "mcp"


@dataclass
class ChildEvent(FeatureEvent):
    """One event of a sub-agent: ``child_queued``, ``child_start``, then its own run events."""

    child_id: str
    event: ChildRunEvent
    type: Literal["child_event"] = field(default="child_event", init=False)


class DelegationTurn(FeatureTurn):
    def __init__(self, context: TurnContext) -> None:
        super().__init__()
        self.context = context
        self.transcripts = ChildTranscripts(context.session.path)
        self.delegation: DelegationContext | None = None

    async def start(self) -> None:
        resolved = await self.context.model()
        self.delegation = DelegationContext(
            resolved.model,
            resolved.stream_fn or _default_stream_fn(),
            tools=self._parent_tools(),
            on_child_event=self._on_child_event,
        )
        self.tools = [delegate_tool(self.delegation)]

    def attach(self, run: AgentRun) -> None:
        if self.delegation is not None:
            self.delegation.attach(run)

    def _parent_tools(self) -> list[AgentTool]:
        """The turn's tools a child may pick its read-only ones from."""
        with_mcp = self.context.settings.mcp_subagents
        offered = self.context.turn_tools()
        return [tool for owner, tools in offered.items() if owner != MCP_FEATURE or with_mcp for tool in tools]

    def _on_child_event(self, child_id: str, event: ChildRunEvent) -> None:
        self.transcripts.record(child_id, event)
        self.context.emit(ChildEvent(child_id, event))


def _default_stream_fn() -> StreamFn:
    from jupyter_agent.runtime.options import default_stream_fn

    return default_stream_fn()


class DelegationFeature(Feature):
    name: ClassVar[str] = "delegation"
    view: ClassVar[str] = "jupyter_agent.features.delegation.view"

    def enabled(self, settings: TurnSettings) -> bool:
        return settings.delegate and tuple(settings.tools) != ("none",)

    def open(self, context: TurnContext) -> DelegationTurn:
        return DelegationTurn(context)


__all__ = ["ChildEvent", "DelegationFeature", "DelegationTurn"]
