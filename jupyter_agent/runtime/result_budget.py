"""Tool calls and results sized for the model's window: a 50 KB result must not brick an 8 k-token
model, nor a 5 MB argument a session.

Each tool caps its own output (50 KB by default), which is a small part of a large window and
more than a whole small one. Every result is also clamped to a quarter of the window (about four
characters a token), keeping its head and tail with a note saying what was cut and why. A call
whose arguments alone exceed that quarter is not run: its result is a one-line error that says
how to send large content instead. A history that no longer fits (a session resumed on a smaller
model, a result kept by compaction, such a call's arguments) is shrunk the same way, the largest
results first and oversized arguments replaced by a note, before the run gives up with
``max_context``; the transcript (and the session file) keeps every message whole.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from typing import Any, Sequence

from pydantic import BaseModel

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.loop.execute_tool import normalize_output
from jupyter_agent.messages import AssistantMessage, ImageContent, Message, TextContent, ToolCall, ToolResultMessage
from jupyter_agent.model.tokens import estimate_message_tokens

CHARS_PER_TOKEN = 4
WINDOW_SHARE = 4  # one result may fill a quarter of the window
MIN_RESULT_CHARS = 1_000  # below this a result says too little to be worth keeping at all
_NOTE_ROOM = 200  # a block past the budget keeps this much: the note and a glimpse of its start


def result_char_budget(window_tokens: int) -> int:
    """Characters one tool result may hold for a model with this window."""
    return max(MIN_RESULT_CHARS, window_tokens * CHARS_PER_TOKEN // WINDOW_SHARE)


def cut_note(cut_chars: int, window_tokens: int) -> str:
    return (
        f"[… {cut_chars} characters cut from this tool result to fit the model's context window "
        f"({window_tokens} tokens); ask for a smaller part to see more …]"
    )


def clamp_text(text: str, max_chars: int, window_tokens: int) -> str:
    """``text`` within ``max_chars`` plus a note: its head and its tail, where results and errors are."""
    if len(text) <= max_chars:
        return text
    keep = max(0, max_chars - _NOTE_ROOM + 40)  # the note takes about 160 characters
    head = text[: keep // 2]
    tail = text[len(text) - (keep - len(head)) :] if keep > len(head) else ""
    return f"{head}\n{cut_note(len(text) - len(head) - len(tail), window_tokens)}\n{tail}"


def clamp_blocks(
    blocks: Sequence[TextContent | ImageContent], max_chars: int, window_tokens: int
) -> list[TextContent | ImageContent]:
    """The text blocks share ``max_chars``; images pass (they are capped by count and bytes)."""
    total = sum(len(block.text) for block in blocks if isinstance(block, TextContent))
    if total <= max_chars:
        return list(blocks)
    clamped: list[TextContent | ImageContent] = []
    remaining = max_chars
    for block in blocks:
        if isinstance(block, TextContent):
            if len(block.text) > remaining:
                block = TextContent(text=clamp_text(block.text, max(remaining, _NOTE_ROOM), window_tokens))
            remaining -= len(block.text)
        clamped.append(block)
    return clamped


class ArgumentsTooLarge(ValueError, JupyterAgentError):
    """A call's arguments alone would fill more of the window than a result may: it is not run."""


def arguments_too_large(size: int, max_chars: int, window_tokens: int) -> str:
    return (
        f"The arguments of this call are {size} characters, over the {max_chars} one tool call may carry for "
        f"this model's context window ({window_tokens} tokens): it was not run. Send large content in parts "
        "(write a part, then edit to add the next), or have python or bash produce it."
    )


def omitted_arguments(size: int, max_chars: int) -> dict[str, Any]:
    """What a request carries instead of arguments too large for the window (the transcript keeps them)."""
    return {"omitted": f"{size} characters of arguments, over the {max_chars} one tool call may carry"}


def clamp_tool(tool: AgentTool, max_chars: int, window_tokens: int) -> AgentTool:
    run_tool = tool.execute

    async def execute(args: BaseModel, signal: AbortSignal) -> ToolOutput:
        size = len(args.model_dump_json())
        if size > max_chars:
            raise ArgumentsTooLarge(arguments_too_large(size, max_chars, window_tokens))
        outcome: object = run_tool(args, signal)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        content, details = normalize_output(outcome)
        return ToolOutput(content=clamp_blocks(content, max_chars, window_tokens), details=details)

    return dataclasses.replace(tool, execute=execute)


def shrink_results(view: Sequence[Message], excess_tokens: int, window_tokens: int) -> tuple[list[Message], int] | None:
    """``view`` with its largest tool results clamped until ``excess_tokens`` are saved, and the
    tokens saved; ``None`` when even clamping every result to the minimum cannot save that much."""
    max_chars = result_char_budget(window_tokens)
    while True:
        shrunk, saved = _clamp_all(view, max_chars, window_tokens)
        if saved >= excess_tokens:
            return shrunk, saved
        if max_chars <= MIN_RESULT_CHARS:
            return None
        max_chars = max(MIN_RESULT_CHARS, max_chars // 2)


def _clamp_all(view: Sequence[Message], max_chars: int, window_tokens: int) -> tuple[list[Message], int]:
    shrunk: list[Message] = []
    saved = 0
    for message in view:
        smaller: Message | None = None
        if isinstance(message, ToolResultMessage):
            size = sum(len(block.text) for block in message.content if isinstance(block, TextContent))
            if size > max_chars:
                smaller = message.model_copy(update={"content": clamp_blocks(message.content, max_chars, window_tokens)})
        elif isinstance(message, AssistantMessage) and message.tool_calls:
            smaller = _without_oversized_arguments(message, max_chars)
        if smaller is not None:
            saved += estimate_message_tokens(message) - estimate_message_tokens(smaller)
            message = smaller
        shrunk.append(message)
    return shrunk, saved


def _without_oversized_arguments(message: AssistantMessage, max_chars: int) -> AssistantMessage | None:
    """A copy of ``message`` whose tool calls carry a note instead of arguments over ``max_chars``."""
    content = []
    changed = False
    for block in message.content:
        if isinstance(block, ToolCall):
            size = len(json.dumps(block.arguments, ensure_ascii=False, separators=(",", ":")))
            if size > max_chars:
                block = block.model_copy(update={"arguments": omitted_arguments(size, max_chars)})
                changed = True
        content.append(block)
    return message.model_copy(update={"content": content}) if changed else None


__all__ = [
    "ArgumentsTooLarge",
    "arguments_too_large",
    "clamp_blocks",
    "clamp_text",
    "clamp_tool",
    "omitted_arguments",
    "result_char_budget",
    "shrink_results",
]
