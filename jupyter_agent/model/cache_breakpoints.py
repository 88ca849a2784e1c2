"""Prompt-cache breakpoints for the providers that take them: Anthropic, and Claude on Bedrock and Vertex AI.

Such a provider caches a request's prefix up to each breakpoint (``cache_control``) and serves a
later request starting with the same prefix from the cache, at about a tenth of the input price.
The breakpoints sit where the request stops repeating: after the tool list and the system prompt
(the same in every step and turn), after the newest user prompt, and after the newest message,
so the next step, which resends all of it and adds its own, reads everything up to there from
the cache. OpenAI, Gemini and DeepSeek cache prefixes on their own and get no markers.

litellm carries the markers in its (OpenAI-shaped) request: on a content part of a system or user
message, on a tool message, and on a tool definition; it writes them in each provider's shape.
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.model.types import Model

EPHEMERAL = {"type": "ephemeral"}
# Anthropic refuses a request with more than four breakpoints.
MAX_BREAKPOINTS = 4
CLAUDE_HOSTS = frozenset({"bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta"})


def takes_cache_breakpoints(model: Model) -> bool:
    """Whether ``model``'s provider caches only where the request marks it."""
    if model.provider == "anthropic":
        return True
    return model.provider in CLAUDE_HOSTS and "claude" in model.id.lower()


def add_cache_breakpoints(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    """Marks the breakpoints in a freshly built request; returns how many.

    The lists are changed in place, the messages never: a marked message is a marked copy,
    because the request's message dicts are shared with later requests (``litellm_convert``).
    """
    marked = 0
    if tools:
        tools[-1] = {**tools[-1], "cache_control": dict(EPHEMERAL)}
        marked += 1
    if messages and messages[0].get("role") == "system":
        messages[0] = _with_mark(messages[0])
        marked += 1
    newest = next((i for i in reversed(range(len(messages))) if messages[i].get("role") in ("user", "tool")), None)
    prompt = next((i for i in reversed(range(len(messages))) if messages[i].get("role") == "user"), None)
    for index in (prompt, newest):
        if index is not None and not _is_marked(messages[index]) and marked < MAX_BREAKPOINTS:
            messages[index] = _with_mark(messages[index])
            marked += 1
    return marked


def _is_marked(message: dict[str, Any]) -> bool:
    content = message.get("content")
    if "cache_control" in message:
        return True
    return isinstance(content, list) and bool(content) and isinstance(content[-1], dict) and "cache_control" in content[-1]


def _with_mark(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if message.get("role") == "tool":
        return {**message, "cache_control": dict(EPHEMERAL)}  # litellm puts it on the tool_result block
    if isinstance(content, str):
        return {**message, "content": [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]}
    if isinstance(content, list) and content:
        return {**message, "content": [*content[:-1], {**content[-1], "cache_control": dict(EPHEMERAL)}]}
    return message
