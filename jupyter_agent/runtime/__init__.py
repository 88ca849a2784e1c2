"""The agent runtime: ``run_agent`` with steering, budgets, spend, compaction and the
permission gate, built on the loop's callbacks."""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.runtime.events import (
        ApprovalRequestEvent,
        ApprovalResponseEvent,
        CompactedEvent,
        FinishEvent,
        MessageEvent,
        RunErrorEvent,
        RunEvent,
        RunStartEvent,
        RunTextDeltaEvent,
        RunThinkingDeltaEvent,
        StepFinishEvent,
        StepStartEvent,
        ToolCallEvent,
        ToolResultEvent,
        UserMessageEvent,
    )
    from jupyter_agent.runtime.feed import FatalToRun
    from jupyter_agent.runtime.limits import StepContext, StepInfo
    from jupyter_agent.runtime.options import StepOverrides
    from jupyter_agent.runtime.permissions import ApprovalRequest, PermissionPolicy, Trust
    from jupyter_agent.runtime.queues import Pending
    from jupyter_agent.runtime.result import STOP_REASONS, RunResult
    from jupyter_agent.runtime.run import AgentRun, run_agent
    from jupyter_agent.runtime.spend import Rates, RunUsage

__all__ = [
    "AgentRun",
    "ApprovalRequest",
    "ApprovalRequestEvent",
    "ApprovalResponseEvent",
    "CompactedEvent",
    "FatalToRun",
    "FinishEvent",
    "MessageEvent",
    "Pending",
    "PermissionPolicy",
    "Trust",
    "Rates",
    "RunErrorEvent",
    "RunEvent",
    "RunResult",
    "RunStartEvent",
    "RunTextDeltaEvent",
    "RunThinkingDeltaEvent",
    "RunUsage",
    "STOP_REASONS",
    "StepContext",
    "StepFinishEvent",
    "StepInfo",
    "StepOverrides",
    "StepStartEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "UserMessageEvent",
    "run_agent",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
