"""Run events: what a host sees of a run, each a small dataclass with a ``type`` tag.

Payloads are copies made for the event; consumers may keep or mutate them freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Union

from jupyter_agent.messages import ImageContent, Message, TextContent, ToolResultMessage
from jupyter_agent.runtime.privacy import local_content, withheld_note
from jupyter_agent.runtime.spend import RunUsage

if TYPE_CHECKING:
    from jupyter_agent.runtime.permissions import ApprovalRequest


@dataclass(slots=True)
class RunStartEvent:
    step_budget: int | None  # None: no step ceiling
    type: Literal["run_start"] = field(default="run_start", init=False)


@dataclass(slots=True)
class StepStartEvent:
    step: int
    type: Literal["step_start"] = field(default="step_start", init=False)


@dataclass(slots=True)
class RunTextDeltaEvent:
    delta: str
    type: Literal["text_delta"] = field(default="text_delta", init=False)


@dataclass(slots=True)
class RunThinkingDeltaEvent:
    delta: str
    type: Literal["thinking_delta"] = field(default="thinking_delta", init=False)


@dataclass(slots=True)
class ToolCallEvent:
    tool_call_id: str
    name: str
    args: dict[str, Any]
    # Seconds the call may run once it starts (``AgentTool.time_limit``); None: no limit.
    time_limit: float | None = None
    type: Literal["tool_call"] = field(default="tool_call", init=False)


@dataclass(slots=True)
class ToolResultEvent:
    tool_call_id: str
    name: str
    content: list[TextContent | ImageContent]  # what the model got
    is_error: bool
    details: Any = None
    # What the user sees when the model's copy withheld values under the data policy (see
    # ``runtime/privacy.py``); ``None``: ``content`` is both. ``withheld`` says what was left out.
    local_content: list[TextContent | ImageContent] | None = None
    withheld: str = ""
    type: Literal["tool_result"] = field(default="tool_result", init=False)

    @classmethod
    def of(cls, message: ToolResultMessage) -> ToolResultEvent:
        """The event of a result message: copies of its blocks, its local copy read from its details."""
        return cls(
            tool_call_id=message.tool_call_id,
            name=message.tool_name,
            content=[block.model_copy() for block in message.content],
            is_error=message.is_error,
            details=message.details,
            local_content=local_content(message.details),
            withheld=withheld_note(message.details),
        )

    @property
    def shown(self) -> list[TextContent | ImageContent]:
        """What a renderer shows the user: the local copy, else the content."""
        return self.local_content if self.local_content is not None else self.content


@dataclass(slots=True)
class StepFinishEvent:
    step: int
    usage: RunUsage  # cumulative after the step
    step_usage: RunUsage  # this step alone, compaction requests included
    model: str  # id of the model the step used
    type: Literal["step_finish"] = field(default="step_finish", init=False)


@dataclass(slots=True)
class UserMessageEvent:
    text: str
    delivery: Literal["steer", "follow_up"]
    phase: Literal["queued", "delivered"]
    type: Literal["user_message"] = field(default="user_message", init=False)


@dataclass(slots=True)
class MessageEvent:
    """A message joined the transcript (the session store records from this)."""

    message: Message
    type: Literal["message"] = field(default="message", init=False)


@dataclass(slots=True)
class CompactedEvent:
    dropped_messages: int
    kept_messages: int
    summary_chars: int
    summary: str
    first_kept_index: int  # into the full transcript: first message kept verbatim after the summary
    type: Literal["compacted"] = field(default="compacted", init=False)


@dataclass(slots=True)
class ApprovalRequestEvent:
    request: "ApprovalRequest"
    type: Literal["approval_request"] = field(default="approval_request", init=False)


@dataclass(slots=True)
class ApprovalResponseEvent:
    request: "ApprovalRequest"
    decision: str  # "once" | "tool" | "call" | "deny", or "cancelled" when the run was interrupted
    type: Literal["approval_response"] = field(default="approval_response", init=False)


@dataclass(slots=True)
class FinishEvent:
    reason: str
    text: str
    usage: RunUsage
    type: Literal["finish"] = field(default="finish", init=False)


@dataclass(slots=True)
class RunErrorEvent:
    error: BaseException
    type: Literal["error"] = field(default="error", init=False)


RunEvent = Union[
    RunStartEvent,
    StepStartEvent,
    RunTextDeltaEvent,
    RunThinkingDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    StepFinishEvent,
    UserMessageEvent,
    MessageEvent,
    CompactedEvent,
    ApprovalRequestEvent,
    ApprovalResponseEvent,
    FinishEvent,
    RunErrorEvent,
]
