"""The scripted model, where tests and benchmarks import it from (see ``jupyter_agent.model.scripted``)."""

from jupyter_agent.model.scripted import (
    NO_MORE_RESPONSES,
    Responder,
    ScriptedModel,
    ScriptedRequest,
    ScriptedResponse,
    call,
    estimate_usage,
    failure,
    reply,
    think,
    tool_calls,
    truncated,
)

__all__ = [
    "NO_MORE_RESPONSES",
    "Responder",
    "ScriptedModel",
    "ScriptedRequest",
    "ScriptedResponse",
    "call",
    "estimate_usage",
    "failure",
    "reply",
    "think",
    "tool_calls",
    "truncated",
]
