"""The agent loop: ``run_agent_loop``, ``Agent``, tools, cancellation and events."""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.loop.abort import AbortController, AbortSignal, RunCancelled, abortable
    from jupyter_agent.loop.agent import Agent
    from jupyter_agent.loop.agent_loop import run_agent_loop
    from jupyter_agent.loop.types import (
        AgentLoopError,
        AgentLoopOptions,
        AgentTool,
        ApprovalPreview,
        LoopEvent,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        RequestPreparation,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolOutput,
        TurnDecision,
        TurnInfo,
    )

__all__ = [
    "AbortController",
    "AbortSignal",
    "Agent",
    "AgentLoopError",
    "AgentLoopOptions",
    "AgentTool",
    "ApprovalPreview",
    "LoopEvent",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "RequestPreparation",
    "RunCancelled",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolOutput",
    "TurnDecision",
    "TurnInfo",
    "abortable",
    "run_agent_loop",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
