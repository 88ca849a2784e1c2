"""The full transcript beside the model's view, and the run events that loop events become.

The loop's history is the model's view and shrinks on compaction; the transcript keeps every
message. ``view_sources[i]`` is the transcript index of view message ``i`` (``None`` for a
summary), which is how a compaction names the first message it kept verbatim.
"""

from __future__ import annotations

from typing import Any, Callable

from jupyter_agent.loop import LoopEvent, MessageEndEvent, MessageStartEvent, MessageUpdateEvent
from jupyter_agent.loop.abort import cancelled_details
from jupyter_agent.messages import AssistantMessage, Message, TextContent, ToolResultMessage, copy_json, copy_message
from jupyter_agent.model import TextDeltaEvent, ThinkingDeltaEvent, ToolCallEndEvent
from jupyter_agent.runtime.compaction import CompactionPlan
from jupyter_agent.runtime.events import (
    MessageEvent,
    RunEvent,
    RunTextDeltaEvent,
    RunThinkingDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
)


class TranscriptRecorder:
    def __init__(
        self,
        prior: list[Message],
        emit: Callable[[RunEvent], None],
        on_assistant: Callable[[AssistantMessage], None],
        on_view_append: Callable[[Message], None],
        limit_of: Callable[[str, dict[str, Any]], float | None] = lambda _name, _args: None,
    ) -> None:
        self.messages = prior
        self.run_start = len(prior)
        self.view_sources: list[int | None] = list(range(len(prior)))
        self._emit = emit
        self._on_assistant = on_assistant
        self._on_view_append = on_view_append
        self._limit_of = limit_of  # a call's time limit, by tool name and arguments
        self._partial: AssistantMessage | None = None  # the in-flight response, as streamed so far
        self._announced: set[str] = set()
        self._open_calls: dict[str, str] = {}  # announced calls still waiting for a result

    def on_loop_event(self, event: LoopEvent) -> None:
        if isinstance(event, MessageUpdateEvent):
            # The partial is a snapshot made for this event alone: keeping it needs no copy.
            self._partial = event.message
            update = event.assistant_message_event
            if isinstance(update, TextDeltaEvent):
                self._emit(RunTextDeltaEvent(delta=update.delta))
            elif isinstance(update, ThinkingDeltaEvent):
                self._emit(RunThinkingDeltaEvent(delta=update.delta))
            elif isinstance(update, ToolCallEndEvent):
                self._announce(update.tool_call.id, update.tool_call.name, update.tool_call.arguments)
        elif isinstance(event, MessageEndEvent):
            self._joined(event.message)
        elif isinstance(event, MessageStartEvent) and isinstance(event.message, AssistantMessage):
            self._partial = event.message

    def _joined(self, message: Message) -> None:
        """``message`` is the loop's copy for this event: the transcript may keep it."""
        self.messages.append(message)
        self.view_sources.append(len(self.messages) - 1)
        if isinstance(message, AssistantMessage):
            self._partial = None
            self._on_assistant(message)
        self._on_view_append(message)
        self._emit(MessageEvent(message=copy_message(message)))
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:  # a stream that sent only a final result announced none
                self._announce(call.id, call.name, call.arguments)
            if message.stop_reason in ("error", "aborted"):
                # Replay drops such a response with its calls: they never get a result message.
                self.pair_open(
                    message.error_message or f"Model response ended with {message.stop_reason}",
                    cancelled=message.stop_reason == "aborted",
                )
        elif isinstance(message, ToolResultMessage):
            self._open_calls.pop(message.tool_call_id, None)
            self._emit(ToolResultEvent.of(message))

    def _announce(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        if call_id in self._announced:
            return
        self._announced.add(call_id)
        self._open_calls[call_id] = name
        limit = self._limit_of(name, arguments)
        self._emit(ToolCallEvent(tool_call_id=call_id, name=name, args=copy_json(arguments), time_limit=limit))

    def pair_open(self, reason: str, *, cancelled: bool = False) -> None:
        """Gives every announced call without a result an error ``tool_result`` event;
        ``cancelled``: the run was stopped before the calls could run (``details`` says so)."""
        calls, self._open_calls = self._open_calls, {}
        for call_id, name in calls.items():
            self._emit(
                ToolResultEvent(
                    tool_call_id=call_id,
                    name=name,
                    content=[TextContent(text=reason)],
                    is_error=True,
                    details=cancelled_details() if cancelled else None,
                )
            )

    def record_interrupted(self, reason: str) -> None:
        """Keeps what had streamed of an interrupted response (replay drops it: it is aborted)."""
        partial, self._partial = self._partial, None
        if partial is None or not partial.content:
            return
        message = partial.model_copy(update={"stop_reason": "aborted", "error_message": reason}, deep=True)
        self.messages.append(message)
        self._emit(MessageEvent(message=copy_message(message)))

    def compacted(self, plan: CompactionPlan) -> int:
        """Realigns the view's sources after compaction; returns the first kept message's index."""
        first_kept = self.view_sources[plan.tail_start]
        self.view_sources = self.view_sources[: len(plan.head)] + [None] + self.view_sources[plan.tail_start :]
        return first_kept if first_kept is not None else len(self.messages)

    def final_text(self) -> str:
        for message in reversed(self.messages[self.run_start :]):
            if isinstance(message, AssistantMessage):
                return message.text
        return ""
