"""jupyter-agent: an LLM agent that lives inside your Jupyter kernel.

This module is the public API, and only that (``tests/test_public_api.py`` holds the list):
the data model, the model boundary, the loop, ``run_agent`` and its run, the coding and kernel
tools, ``SessionStore`` and the IPython extension hooks. Everything else is imported from the
subpackage that defines it (``jupyter_agent.runtime.events``, ``jupyter_agent.features.plan``, ...).

The core (data model, model boundary, loop) is imported eagerly: it needs only pydantic.
Everything else is resolved on first use, so ``import jupyter_agent`` stays fast and never
imports litellm, IPython or ipywidgets.
"""

from __future__ import annotations

import importlib

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

__version__ = "0.1.0"

# name -> module that defines it; imported on first attribute access.
_LAZY = {
    "litellm_stream": "jupyter_agent.model.litellm_stream",
    "get_model": "jupyter_agent.model.catalog",
    "run_agent": "jupyter_agent.runtime",
    "AgentRun": "jupyter_agent.runtime",
    "RunResult": "jupyter_agent.runtime",
    "RunUsage": "jupyter_agent.runtime",
    "Rates": "jupyter_agent.runtime",
    "PermissionPolicy": "jupyter_agent.runtime",
    "ApprovalRequest": "jupyter_agent.runtime",
    "StepContext": "jupyter_agent.runtime",
    "StepInfo": "jupyter_agent.runtime",
    "StepOverrides": "jupyter_agent.runtime",
    "Pending": "jupyter_agent.runtime",
    "coding_tools": "jupyter_agent.tools",
    "kernel_tools": "jupyter_agent.tools",
    "SessionStore": "jupyter_agent.session",
    "load_ipython_extension": "jupyter_agent.notebook",
    "unload_ipython_extension": "jupyter_agent.notebook",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jupyter_agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    *_LAZY,
]
