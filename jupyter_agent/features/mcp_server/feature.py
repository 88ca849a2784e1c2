"""The kernel's MCP server as a feature: no part in turns, ``%agent serve`` in its view.

An external agent's calls are served with the tools of the features that serve (``Feature.serves``:
the notebook tools, the kernel state's watch), through the same permission gate as a turn's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from jupyter_agent.features.feature import Feature, FeatureTurn, TurnContext

if TYPE_CHECKING:
    from jupyter_agent.features.settings import TurnSettings


class McpServerFeature(Feature):
    name: ClassVar[str] = "mcp_server"
    view: ClassVar[str] = "jupyter_agent.features.mcp_server.view"

    def enabled(self, settings: TurnSettings) -> bool:
        return False  # it serves between turns, started by %agent serve

    def open(self, context: TurnContext) -> FeatureTurn:
        return FeatureTurn()


__all__ = ["McpServerFeature"]
