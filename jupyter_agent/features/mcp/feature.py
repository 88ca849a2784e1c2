"""The MCP client as a feature of every turn that does not turn it off (``--no-mcp``, ``--tools none``).

``start`` reads the configuration, asks consent for a project file's servers, starts what is not
running (the panel's note shows the progress) and offers the servers' tools; before every step it
re-lists the tools of a server that announced a change. The servers that are down are named in
the system prompt; the turn's MCP problems stay in the note after the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Sequence

from jupyter_agent.features.feature import Feature, FeatureTurn, TurnContext
from jupyter_agent.features.mcp.turn import McpTurn

if TYPE_CHECKING:
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.messages import Message
    from jupyter_agent.runtime import RunResult


class McpFeatureTurn(FeatureTurn):
    def __init__(self, context: TurnContext | None, mcp: McpTurn | None = None) -> None:
        """``mcp``: servers opened already (tests); else ``start`` opens the turn's."""
        super().__init__(mcp.tools if mcp is not None else ())
        self.context = context
        self.mcp = mcp or McpTurn()

    async def start(self) -> None:
        from jupyter_agent.features.mcp import open_turn

        if self.context is None:
            return
        settings = self.context.settings
        self.mcp = await open_turn(
            self.context.session,
            configured=settings.mcp_servers,
            selection=settings.mcp,
            mode=settings.permissions,
            ask=self.context.ask,
            note=self.context.note,
        )
        self.tools = list(self.mcp.tools)

    def system_section(self) -> str:
        return self.mcp.system_section()

    async def before_step(self) -> bool:
        if not self.mcp.tools_stale():
            return False
        await self.mcp.refresh()
        self.tools = list(self.mcp.tools)
        return True

    async def after(self, result: RunResult, added: Sequence[Message]) -> None:
        self.mcp.show()  # the MCP notes stay visible after other notes came and went


class McpFeature(Feature):
    name: ClassVar[str] = "mcp"
    view: ClassVar[str] = "jupyter_agent.features.mcp.view"

    def enabled(self, settings: TurnSettings) -> bool:
        return settings.mcp != () and tuple(settings.tools) != ("none",)

    def open(self, context: TurnContext) -> McpFeatureTurn:
        return McpFeatureTurn(context)


__all__ = ["McpFeature", "McpFeatureTurn"]
