"""A request in litellm's (OpenAI chat-completions) shape: messages, tools and call options.

litellm translates this one shape to every provider. What the shape cannot carry natively is
adapted here: images in tool results go into the tool message only for providers that accept
them there (Anthropic) and otherwise follow the results as a user message; signed and redacted
thinking travel as ``thinking_blocks`` so a replay to the same model stays valid. The request's
step context (``Context.step_context``) is its last message, a user message after the cache
breakpoints: OpenAI-shaped APIs take a user message after tool results, and litellm merges it
into the same user turn as the tool results for Anthropic, after their ``tool_result`` blocks.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from jupyter_agent.long_lived import MANY_NEW_VALUES, long_lived_objects
from jupyter_agent.messages import (
    AssistantMessage,
    ImageContent,
    PerMessage,
    PrefixCache,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from jupyter_agent.model.cache_breakpoints import add_cache_breakpoints, takes_cache_breakpoints
from jupyter_agent.model.catalog import litellm_name
from jupyter_agent.model.types import Context, Model, StreamOptions, ToolSpec

# Providers whose tool results may carry images (litellm maps image_url parts into tool_result).
NATIVE_TOOL_IMAGES = frozenset({"anthropic"})
TOOL_IMAGES_FOLLOW = "Attached image(s) from tool result:"
EMPTY_TOOL_RESULT = "(no output)"
NO_KEY = "no-key"
STEP_CONTEXT_OPEN, STEP_CONTEXT_CLOSE = "<step-context>\n", "\n</step-context>"
_TOOL_CHOICE_KEYWORDS = frozenset({"auto", "none", "required"})


def build_request(model: Model, context: Context, options: StreamOptions | None = None) -> dict[str, Any]:
    """Keyword arguments for ``litellm.acompletion``."""
    options = options or StreamOptions()
    request: dict[str, Any] = {
        "model": litellm_name(model),
        "messages": to_litellm_messages(context, model),
        "stream": True,
        "stream_options": {"include_usage": True},
        # Retries belong to the runtime: a hidden SDK retry multiplies the wait and the spend.
        "max_retries": 0,
        # A setting one provider does not support (reasoning effort, tool_choice) must not fail the request.
        "drop_params": True,
    }
    if context.tools:
        request["tools"] = [to_litellm_tool(tool) for tool in context.tools]
        if options.tool_choice is not None:
            request["tool_choice"] = to_tool_choice(options.tool_choice)
    api_base = options.api_base or model.base_url
    if api_base:
        request["api_base"] = api_base
    if options.api_key:
        request["api_key"] = options.api_key
    elif api_base and model.provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
        # Local OpenAI-compatible servers need no key, but the OpenAI client refuses to send without one.
        request["api_key"] = NO_KEY
    if options.max_tokens is not None:
        request["max_tokens"] = options.max_tokens
    if options.temperature is not None:
        request["temperature"] = options.temperature
    if options.reasoning:
        request["reasoning_effort"] = options.reasoning
    breakpoints = options.cache_breakpoints
    if breakpoints if breakpoints is not None else takes_cache_breakpoints(model):
        add_cache_breakpoints(request["messages"], request.get("tools"))
    # After the breakpoints: the newest one stays on the newest message of the history, the
    # prefix the next step's request starts with, and what changes every step is never cached.
    step_context = step_context_message(context.step_context)
    if step_context is not None:
        request["messages"].append(step_context)
    request.update(options.extra)
    return request


def step_context_message(step_context: str | None) -> dict[str, Any] | None:
    """The request's last message carrying ``step_context``; ``None`` when there is none."""
    if step_context is None or not step_context.strip():
        return None
    return {"role": "user", "content": f"{STEP_CONTEXT_OPEN}{step_context.strip()}{STEP_CONTEXT_CLOSE}"}


def to_litellm_tool(tool: ToolSpec) -> dict[str, Any]:
    # Providers reject a function without a parameters object, even for a tool with no arguments.
    parameters = tool.parameters or {"type": "object", "properties": {}}
    return {"type": "function", "function": {"name": tool.name, "description": tool.description, "parameters": parameters}}


def to_tool_choice(choice: str | dict[str, Any]) -> str | dict[str, Any]:
    if isinstance(choice, str) and choice not in _TOOL_CHOICE_KEYWORDS:
        return {"type": "function", "function": {"name": choice}}  # a bare tool name forces that tool
    return choice


def to_litellm_messages(context: Context, model: Model) -> list[dict[str, Any]]:
    """The request's messages: a new list (the caller may change it), of dicts shared with later
    requests (nobody may change those)."""
    native_images = model.provider in NATIVE_TOOL_IMAGES
    start, state = _CONVERTED.resume(native_images, context.messages)
    if state is None:
        start, state = 0, _Converted()
    tool_results = _TOOL_RESULTS[native_images]
    body, held_images = state.body, state.held_images
    added = context.messages[start:]
    with long_lived_objects(len(added) >= MANY_NEW_VALUES):  # a long session's first request: its dicts live on
        for message in added:
            if isinstance(message, ToolResultMessage):
                tool_message, images = tool_results(message)
                body.append(tool_message)
                held_images.extend(images)
                continue
            _release_images(body, held_images)
            if isinstance(message, UserMessage):
                body.append(_USER_MESSAGES(message))
            elif isinstance(message, AssistantMessage):
                assistant = _ASSISTANT_MESSAGES(message)
                if assistant is not None:
                    body.append(assistant)
    _CONVERTED.keep(native_images, context.messages, state)
    messages: list[dict[str, Any]] = [{"role": "system", "content": context.system_prompt}] if context.system_prompt else []
    messages += body
    _release_images(messages, list(held_images))  # the next message may bring more: the state keeps them held
    return messages


@dataclass
class _Converted:
    """The request form of a history so far, and the tool-result images not yet placed."""

    body: list[dict[str, Any]] = field(default_factory=list)
    held_images: list[dict[str, Any]] = field(default_factory=list)  # wait for the next non-tool message


# A step resends the whole history with one or two messages more: the conversion resumes where
# the previous step's stopped (per image handling, the one thing of the model it depends on).
_CONVERTED: PrefixCache[_Converted] = PrefixCache()


def image_part(image: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}}


def _user_content(content: str | list[TextContent | ImageContent]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    texts = [block.text for block in content if isinstance(block, TextContent)]
    if len(texts) == len(content):
        # Plain text as a string: some OpenAI-compatible servers accept nothing else.
        return "\n".join(texts)
    return [{"type": "text", "text": block.text} if isinstance(block, TextContent) else image_part(block) for block in content]


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    text = "".join(block.text for block in message.content if isinstance(block, TextContent))
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    thinking = [block for block in message.content if isinstance(block, ThinkingContent)]
    signed = [block for block in thinking if block.thinking_signature]
    if not (text or calls or thinking):
        return None  # an empty assistant message is rejected by several providers and says nothing
    result: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        result["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
            for call in calls
        ]
    if signed:
        result["thinking_blocks"] = [_thinking_block(block) for block in signed]
    unsigned = "".join(block.thinking for block in thinking if not block.thinking_signature)
    if unsigned:
        # Same-model replay only (transform_messages turns other models' thinking into text);
        # reasoning providers that stream reasoning_content expect it back within a tool loop.
        result["reasoning_content"] = unsigned
    return result


def _thinking_block(block: ThinkingContent) -> dict[str, Any]:
    if block.redacted:
        return {"type": "redacted_thinking", "data": block.thinking_signature}
    return {"type": "thinking", "thinking": block.thinking, "signature": block.thinking_signature}


def _tool_result(message: ToolResultMessage, native_images: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    images = [image_part(block) for block in message.content if isinstance(block, ImageContent)]
    tool_message: dict[str, Any] = {"role": "tool", "tool_call_id": message.tool_call_id}
    if images and native_images:
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        tool_message["content"] = parts + images
        return tool_message, []
    # Providers reject an empty tool message; the placeholder tells the model nothing came back.
    tool_message["content"] = text or (TOOL_IMAGES_FOLLOW if images else EMPTY_TOOL_RESULT)
    return tool_message, images


# A long session resends thousands of unchanged messages every step: each one's request form is
# built once and shared by the later requests, which never change it (cache_breakpoints marks copies).
_USER_MESSAGES: PerMessage[dict[str, Any]] = PerMessage(
    lambda message: {"role": "user", "content": _user_content(message.content)}
)
_ASSISTANT_MESSAGES: PerMessage[dict[str, Any] | None] = PerMessage(_assistant)
_TOOL_RESULTS = {native: PerMessage(partial(_tool_result, native_images=native)) for native in (False, True)}


def _release_images(messages: list[dict[str, Any]], held_images: list[dict[str, Any]]) -> None:
    if held_images:
        messages.append({"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_FOLLOW}, *held_images]})
        held_images.clear()
