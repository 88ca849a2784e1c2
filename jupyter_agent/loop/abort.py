"""Cancellation: ``AbortController``/``AbortSignal`` and waits that the signal can interrupt."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, TypeVar

from jupyter_agent.errors import JupyterAgentError

T = TypeVar("T")


def cancelled_details(*, while_running: bool = False) -> dict[str, bool]:
    """The ``details`` of a tool result made because the run was stopped, not because the tool failed.

    ``while_running``: the call had started and was stopped in its work (the views say "stopped"),
    rather than never run (they say "cancelled")."""
    return {"cancelled": True, "while_running": True} if while_running else {"cancelled": True}


def was_stopped_while_running(details: object) -> bool:
    return was_cancelled(details) and isinstance(details, dict) and details.get("while_running") is True


def was_cancelled(details: object) -> bool:
    return isinstance(details, dict) and details.get("cancelled") is True


class RunCancelled(JupyterAgentError):
    """The default abort reason. An ``Exception``: a ``BaseException`` would kill the kernel.

    ``details``: a tool that raises it when stopped in its work may give its result details as
    ``ToolError`` does (a dict, which the loop marks as stopped; e.g. the user's copy of the output)."""

    def __init__(self, message: str = "Run cancelled", details: Any = None) -> None:
        super().__init__(message)
        self.details = details


class AbortSignal:
    def __init__(self) -> None:
        self._aborted = False
        self._reason: BaseException | None = None
        self._listeners: list[Callable[[BaseException], None]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> BaseException | None:
        return self._reason

    def add_listener(self, listener: Callable[[BaseException], None]) -> None:
        if self._reason is not None:
            listener(self._reason)
        else:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[BaseException], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def throw_if_aborted(self) -> None:
        if self._reason is not None:
            raise self._reason

    def _abort(self, reason: BaseException) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener(reason)


class AbortController:
    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: BaseException | None = None) -> None:
        self.signal._abort(reason if reason is not None else RunCancelled())


async def abortable(awaitable: Awaitable[T], signal: AbortSignal) -> T:
    """Awaits ``awaitable`` unless the signal aborts first; then raises the signal's reason.

    The abandoned work is cancelled and its late failure ignored; the listener is always removed.
    """
    signal.throw_if_aborted()
    task = asyncio.ensure_future(awaitable)
    aborted: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()

    def on_abort(reason: BaseException) -> None:
        if not aborted.done():
            aborted.set_result(reason)

    signal.add_listener(on_abort)
    try:
        first: set[asyncio.Future[Any]] = {task, aborted}
        await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        signal.remove_listener(on_abort)
    if signal.reason is not None:
        # A task that ended reporting its own stop (RunCancelled: the python tool's interrupted code,
        # with what it printed) is the cancellation's account: it is raised instead of the bare reason.
        if task.done() and not task.cancelled() and isinstance(task.exception(), RunCancelled):
            raise task.exception()  # type: ignore[misc]
        # Cancellation wins, even over a task that failed at the same moment.
        if not task.done():
            task.cancel()
        task.add_done_callback(_ignore_late_failure)
        raise signal.reason
    aborted.cancel()
    return task.result()


def _ignore_late_failure(task: asyncio.Future[T]) -> None:
    if not task.cancelled():
        task.exception()
