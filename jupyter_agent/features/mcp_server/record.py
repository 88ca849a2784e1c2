"""Every external call in the session file: who called which tool with what, and what it returned.

A call is recorded as the agent's own calls are, an assistant message holding the tool call (with
one line naming the client) followed by its tool result, so ``%agent history``, the sessions view
and a later ``%%agent -s serve`` turn all read it. The pair is written once the call has its
result: calls that overlap (a read while a ``python`` call waits for approval) never leave a
call without its result in between. The pairs are written a moment after the call (``WRITE_DELAY``),
once its answer is on its way: the session file's redaction and write cost a few milliseconds of
the kernel's thread, which the client's round trip need not wait for, and a burst of calls is
written (and synced) at once. While a turn of the same session runs, the pairs wait for it (the
session's lock) rather than cut into its transcript.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage

if TYPE_CHECKING:
    from jupyter_agent.features.feature import TurnSession

WRITE_DELAY = 0.05  # seconds after a call: its answer is sent first
SYNC_DELAY = 0.5  # seconds: a burst of calls costs one fsync
RECORD_API = "mcp"


def call_message(client: str, call: ToolCall) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=f"{client} called `{call.name}` over MCP."), call],
        api=RECORD_API,
        provider="mcp-client",
        model=client,
        stop_reason="tool_use",
    )


class CallRecorder:
    def __init__(self, session: TurnSession, on_error: Callable[[str], None] = lambda _text: None) -> None:
        self.session = session
        self.on_error = on_error
        self.recorded = 0
        self._sync: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._pending: list[tuple[str, ToolCall, ToolResultMessage]] = []
        self._waiting: set[asyncio.Task[None]] = set()
        self.failed = False

    def record(self, client: str, call: ToolCall, result: ToolResultMessage) -> None:
        self._pending.append((client, call, result))
        if self._write_timer is None:
            try:
                self._write_timer = asyncio.get_running_loop().call_later(WRITE_DELAY, self.write_pending)
            except RuntimeError:
                self.write_pending()

    def write_pending(self) -> None:
        """Writes the calls recorded so far (now, or after the session's running turn)."""
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        pairs, self._pending = self._pending, []
        if not pairs:
            return
        lock = getattr(self.session, "lock", None)
        if lock is not None and lock.locked():
            task = asyncio.get_running_loop().create_task(self._after_turn(lock, pairs))
            self._waiting.add(task)
            task.add_done_callback(self._waiting.discard)
            return
        self._write(pairs)

    async def _after_turn(self, lock: asyncio.Lock, pairs: list[tuple[str, ToolCall, ToolResultMessage]]) -> None:
        async with lock:
            self._write(pairs)

    def _write(self, pairs: list[tuple[str, ToolCall, ToolResultMessage]]) -> None:
        if self.failed:
            return  # the file stays a valid prefix: nothing is written after a failed write
        store = self.session.store
        for client, call, result in pairs:
            try:
                store.append(call_message(client, call))
                store.append(result)
            except OSError as error:  # SessionWriteError (a full disk) among them
                self.failed = True
                self.on_error(f"Calls are no longer recorded in session {self.session.name!r}: {error}")
                return
            self.recorded += 1
        self._sync_soon()

    def _sync_soon(self) -> None:
        if self._sync is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._sync = loop.call_later(SYNC_DELAY, self.flush)

    def flush(self) -> None:
        """Syncs what was written (also when the server stops)."""
        if self._sync is not None:
            self._sync.cancel()
            self._sync = None
        try:
            self.session.store.sync()
        except OSError as error:
            self.on_error(f"Session {self.session.name!r} could not be synced: {error}")

    async def drain(self) -> None:
        """Writes what is pending, waits for the pairs that wait for a turn, then syncs (the server's last act)."""
        self.write_pending()
        if self._waiting:
            await asyncio.wait(set(self._waiting), timeout=5)
        self.flush()


__all__ = ["CallRecorder", "call_message"]
