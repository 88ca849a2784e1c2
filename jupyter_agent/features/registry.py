"""The registry: every feature a turn may have, one line each, in the order they open.

Order matters where one feature builds on another's tools: the notebook tools come before the
kernel state (a replay replays them too), the MCP client before delegation (sub-agents may get
its read-only tools). Adding a feature is one line here and a package of its own.
"""

from __future__ import annotations

from jupyter_agent.features.cell_edit.feature import CellEditFeature
from jupyter_agent.features.completion.feature import CompletionFeature
from jupyter_agent.features.delegation.feature import DelegationFeature
from jupyter_agent.features.feature import Feature
from jupyter_agent.features.kernel_state.feature import KernelStateFeature
from jupyter_agent.features.mcp.feature import McpFeature
from jupyter_agent.features.mcp_server.feature import McpServerFeature
from jupyter_agent.features.memory.feature import MemoryFeature
from jupyter_agent.features.notebook_tools.feature import NotebookToolsFeature
from jupyter_agent.features.plan.feature import PlanFeature

FEATURES: tuple[Feature, ...] = (
    NotebookToolsFeature(),
    KernelStateFeature(),
    PlanFeature(),
    MemoryFeature(),
    McpFeature(),
    DelegationFeature(),
    McpServerFeature(),
    CompletionFeature(),
    CellEditFeature(),
)


def feature(name: str) -> Feature:
    """The registered feature called ``name``; ``KeyError`` for another."""
    for known in FEATURES:
        if known.name == name:
            return known
    raise KeyError(name)


def selectable_tools() -> tuple[str, ...]:
    """The tool names features offer for ``--tools``, in registry order."""
    return tuple(name for known in FEATURES for name in known.selectable_tools)


__all__ = ["FEATURES", "feature", "selectable_tools"]
