"""Compaction: replace the middle of the model's view by one summary message.

The view becomes ``[head, summary, tail]``: the head is everything up to the first user message
(the original request, verbatim); the tail is the last ``keep_recent`` messages, widened
backwards so it never starts on a tool result (a result without its call is an invalid
request). ``"model"`` asks the model for the summary and falls back to ``"truncate"``, a short
line per dropped message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, Sequence

from jupyter_agent.loop import AbortSignal
from jupyter_agent.messages import AssistantMessage, Message, ToolResultMessage, Usage, UserMessage, user_text
from jupyter_agent.model import Model, StreamFn, StreamOptions
from jupyter_agent.runtime.summarize import summarize_with_model

CompactionMode = Literal["model", "truncate", "off"]
COMPACTION_MODES = ("model", "truncate", "off")

SUMMARY_OPEN = "<compacted-history>\nThe transcript so far was compacted. Summary of earlier work:\n\n"
SUMMARY_CLOSE = "\n</compacted-history>"
# One line per dropped message is enough to know what happened; the cap bounds the summary
# however long the dropped stretch was.
TRUNCATE_LINE_CHARS = 160
TRUNCATE_TOTAL_CHARS = 12_000


@dataclass
class CompactionPlan:
    head: list[Message]
    middle: list[Message]
    tail: list[Message]
    tail_start: int  # index in the view of the first tail message


@dataclass
class Compaction:
    plan: CompactionPlan
    summary: str
    view: list[Message]  # head + [summary message] + tail
    summary_usage: Usage | None  # the summary request's usage (charged to the run), if one was made


def align_tail_start(messages: Sequence[Message], keep_recent: int) -> int:
    """Index where the kept tail starts: never on a tool result, so calls keep their results."""
    start = max(0, len(messages) - keep_recent)
    while start > 0 and isinstance(messages[start], ToolResultMessage):
        start -= 1
    return start


def plan_compaction(messages: Sequence[Message], keep_recent: int) -> CompactionPlan | None:
    """``None`` when there is nothing between the head and the tail to summarize."""
    head_end = next((i + 1 for i, message in enumerate(messages) if isinstance(message, UserMessage)), None)
    if head_end is None:
        return None
    tail_start = align_tail_start(messages, keep_recent)
    if tail_start <= head_end:
        return None
    return CompactionPlan(
        head=list(messages[:head_end]),
        middle=list(messages[head_end:tail_start]),
        tail=list(messages[tail_start:]),
        tail_start=tail_start,
    )


def summary_message(summary: str) -> UserMessage:
    return UserMessage(content=SUMMARY_OPEN + summary + SUMMARY_CLOSE)


def truncate_summary(messages: Sequence[Message]) -> str:
    lines: list[str] = []
    used = 0
    for index, message in enumerate(messages):
        line = f"[{message.role}] {_one_line(message)}"
        if used + len(line) > TRUNCATE_TOTAL_CHARS:
            lines.append(f"... ({len(messages) - index} earlier messages not shown)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _one_line(message: Message) -> str:
    if isinstance(message, UserMessage):
        text = user_text(message)
    elif isinstance(message, AssistantMessage):
        calls = [f"{call.name}({json.dumps(call.arguments, default=str)})" for call in message.tool_calls]
        text = " ".join(filter(None, [message.text, *(f"called {c}" for c in calls)]))
    else:
        text = ("error: " if message.is_error else "") + message.text
    text = " ".join(text.split())
    return text if len(text) <= TRUNCATE_LINE_CHARS else text[:TRUNCATE_LINE_CHARS] + "..."


class Compactor:
    def __init__(
        self,
        mode: CompactionMode,
        keep_recent: int,
        stream_fn: StreamFn,
        model: Model,
        stream_options: StreamOptions | None,
    ) -> None:
        self.mode = mode
        self.keep_recent = keep_recent
        self.stream_fn = stream_fn
        self.model = model
        self.stream_options = stream_options

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    async def compact(self, view: Sequence[Message], signal: AbortSignal) -> Compaction | None:
        plan = plan_compaction(view, self.keep_recent) if self.enabled else None
        if plan is None:
            return None
        summary, usage = None, None
        if self.mode == "model":
            summary, usage = await summarize_with_model(
                self.stream_fn, self.model, plan.head + plan.middle, self.stream_options, signal
            )
        if not summary:
            summary = truncate_summary(plan.middle)
        return Compaction(
            plan=plan,
            summary=summary,
            view=plan.head + [summary_message(summary)] + plan.tail,
            summary_usage=usage,
        )
