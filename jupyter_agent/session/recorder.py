"""``SessionRecorder``: records a run's events in a ``SessionStore`` as they happen.

Events are duck-typed objects with a ``type`` attribute (the runtime's run events):

* ``message(message)``: a message joined the transcript (user prompt, delivered steer or
  follow-up, complete assistant message, tool result) → one message record;
* ``compacted(summary, first_kept_index, …)``: ``first_kept_index`` indexes the run's transcript,
  which starts with the prior messages the run was given (one past its end: the tail starts at
  this run's latest summary) → a compaction record;
* ``step_finish(step, step_usage, model, …)``: → a usage record, then fsync (a turn boundary);
* ``finish(…)``: → fsync.

Everything else is ignored. Build one with ``store.recorder()`` and give the run
``store.messages()`` as its prior transcript, so indexes line up with record ids.

With a ``trust`` key, the result of every call that ran (the gate allowed it: a click, the
session's trust or the mode the user chose) is recorded with this user's signature of the call,
which a replay checks before it runs the call again unasked (``session/trust.py``).

A write that fails (a full disk) is never swallowed: the recorder keeps the ``SessionWriteError``
in ``failure``, tells ``on_failure`` (the host ends the run with it) and records nothing more, so
the file stays a valid prefix of the run instead of a transcript with holes. Without
``on_failure`` it raises the error to the run, which ends with it (a ``FatalToRun``): a run
recorded through ``run.add_listener(store.recorder())`` never reports "completed" with records lost.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterable, Callable, Sequence
from typing import Any

from jupyter_agent.messages import AssistantMessage, ToolResultMessage, UserMessage
from jupyter_agent.runtime.permissions import was_denied
from jupyter_agent.session.journal import SessionWarning
from jupyter_agent.session.records import CallSignature


class SessionRecorder:
    def __init__(
        self,
        store: Any,
        prior_ids: Sequence[str] = (),
        *,
        snapshots: Any = None,
        summary_message: Callable[[str], UserMessage] | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        trust: Any = None,
    ):
        """``prior_ids``: record ids of the prior messages the run starts with, in order.

        ``snapshots`` (a ``SnapshotStore``) gets ``settle()`` at each step's end, so undo knows
        what the agent left. ``summary_message`` builds the summary message the way the runtime
        framed it for the model, so a resumed session shows the model the very same message.
        """
        self.store = store
        self.snapshots = snapshots
        self.summary_message = summary_message
        # Record id of every transcript message of the run, by transcript index.
        self.transcript_ids: list[str] = list(prior_ids)
        self.current_step: int | None = None
        self._last_summary_id: str | None = None
        self.on_failure = on_failure
        self.failure: BaseException | None = None
        self.trust = trust  # a TrustKey: signs the calls that ran
        self._calls: dict[str, tuple[str, Any]] = {}  # call id -> (tool name, arguments)

    def record(self, event: Any) -> None:
        if self.failure is not None:
            return
        handler = getattr(self, f"_on_{getattr(event, 'type', '')}", None)
        if handler is None:
            return
        try:
            handler(event)
        except OSError as error:
            self.failure = error
            if self.on_failure is None:
                raise  # the run reports a failing listener as an error event
            self.on_failure(error)

    __call__ = record

    async def consume(self, events: AsyncIterable[Any]) -> None:
        """Records every event of ``events`` (e.g. ``run.events``) until it ends."""
        async for event in events:
            self.record(event)

    def _on_message(self, event: Any) -> None:
        message = event.message
        if isinstance(message, AssistantMessage):
            self._calls.update((call.id, (call.name, call.arguments)) for call in message.tool_calls)
        signature = self._signature(message) if isinstance(message, ToolResultMessage) else None
        signed = {"signature": signature} if signature is not None else {}
        self.transcript_ids.append(self.store.append(message, **signed))

    def _signature(self, result: ToolResultMessage) -> CallSignature | None:
        call = self._calls.pop(result.tool_call_id, None)
        header = self.store.header
        if self.trust is None or call is None or header is None or was_denied(result):
            return None
        name, arguments = call
        return self.trust.sign(header.session_id, result.tool_call_id, name, arguments)

    def _on_compacted(self, event: Any) -> None:
        first_kept_id = self._record_id(event.first_kept_index)
        if first_kept_id is None:
            # The transcript and the recorder disagree (e.g. the run got other prior messages):
            # a wrong compaction would corrupt the resumed view, a missing one only widens it.
            warnings.warn(
                f"compaction keeps message {event.first_kept_index} of a transcript of "
                f"{len(self.transcript_ids)} recorded messages: not recorded",
                SessionWarning,
                stacklevel=2,
            )
            return
        message = self.summary_message(event.summary) if self.summary_message else None
        self._last_summary_id = self.store.record_compaction(event.summary, first_kept_id, message=message)

    def _record_id(self, index: int) -> str | None:
        if 0 <= index < len(self.transcript_ids):
            return self.transcript_ids[index]
        if index == len(self.transcript_ids):
            # Past the transcript: the kept tail starts at this run's latest summary message,
            # which is in the model's view but not in the transcript.
            return self._last_summary_id
        return None

    def _on_step_start(self, event: Any) -> None:
        self.current_step = event.step

    def _on_step_finish(self, event: Any) -> None:
        usage = getattr(event, "step_usage", None)
        if usage is not None:
            self.store.record_usage(usage, model=getattr(event, "model", None), step=event.step)
        if self.snapshots is not None:
            self.snapshots.settle()
        self.store.sync()

    def _on_finish(self, event: Any) -> None:
        self.store.sync()


__all__ = ["SessionRecorder"]
