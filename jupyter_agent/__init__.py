"""jupyter-agent: an LLM agent that lives inside your Jupyter kernel.

This module is the public API, and only that (``tests/test_public_api.py`` holds the list):
the data model, the model boundary, the loop, ``run_agent`` and its run, the coding and kernel
tools, ``SessionStore`` and the IPython extension hooks. Everything else is imported from the
subpackage that defines it (``jupyter_agent.runtime.events``, ``jupyter_agent.features.plan``, ...).

Every name is imported on first use (``jupyter_agent.lazy_facade``), so ``import jupyter_agent``
and ``%load_ext jupyter_agent`` import none of the models, litellm or ipywidgets until they are
needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.loop import (
        AbortController,
        AbortSignal,
        Agent,
        AgentLoopError,
        AgentLoopOptions,
        AgentTool,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        RequestPreparation,
        RunCancelled,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolOutput,
        TurnDecision,
        TurnInfo,
        run_agent_loop,
    )
    from jupyter_agent.messages import (
        AssistantMessage,
        Cost,
        ImageContent,
        Message,
        TextContent,
        ThinkingContent,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserMessage,
    )
    from jupyter_agent.model import (
        AssistantMessageEventStream,
        Context,
        DoneEvent,
        ErrorEvent,
        HistorySource,
        Model,
        ModelCost,
        ModelInputMetadata,
        StartEvent,
        StreamFn,
        StreamOptions,
        TextDeltaEvent,
        TextEndEvent,
        TextStartEvent,
        ThinkingDeltaEvent,
        ThinkingEndEvent,
        ThinkingStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
        ToolRepairSource,
        ToolSpec,
        transform_messages,
    )
    from jupyter_agent.model.catalog import get_model
    from jupyter_agent.model.litellm_stream import litellm_stream
    from jupyter_agent.notebook import load_ipython_extension, unload_ipython_extension
    from jupyter_agent.runtime import (
        AgentRun,
        ApprovalRequest,
        Pending,
        PermissionPolicy,
        Rates,
        RunResult,
        RunUsage,
        StepContext,
        StepInfo,
        StepOverrides,
        run_agent,
    )
    from jupyter_agent.session import SessionStore
    from jupyter_agent.tools import coding_tools, kernel_tools

__version__ = "0.1.0"

__all__ = [
    "AbortController",
    "AbortSignal",
    "Agent",
    "AgentLoopError",
    "AgentLoopOptions",
    "AgentTool",
    "AssistantMessage",
    "AssistantMessageEventStream",
    "Context",
    "Cost",
    "DoneEvent",
    "ErrorEvent",
    "HistorySource",
    "ImageContent",
    "Message",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "Model",
    "ModelCost",
    "ModelInputMetadata",
    "RequestPreparation",
    "RunCancelled",
    "StartEvent",
    "StreamFn",
    "StreamOptions",
    "TextContent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingContent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolOutput",
    "ToolRepairSource",
    "ToolResultMessage",
    "ToolSpec",
    "TurnDecision",
    "TurnInfo",
    "Usage",
    "UserMessage",
    "run_agent_loop",
    "transform_messages",
    "litellm_stream",
    "get_model",
    "run_agent",
    "AgentRun",
    "RunResult",
    "RunUsage",
    "Rates",
    "PermissionPolicy",
    "ApprovalRequest",
    "StepContext",
    "StepInfo",
    "StepOverrides",
    "Pending",
    "coding_tools",
    "kernel_tools",
    "SessionStore",
    "load_ipython_extension",
    "unload_ipython_extension",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
