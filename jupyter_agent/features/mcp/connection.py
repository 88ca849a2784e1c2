"""One MCP server: its SDK session kept alive in a task of its own, talked to through jobs.

The SDK is anyio-based and its context managers (transport, ``ClientSession``) must be entered and
left in one task, while a turn's tool calls come from other tasks. So each server has a
long-lived task that opens the transport and the session, lists the tools, then runs the jobs it
is handed (``tools/call``, ``tools/list``) side by side in its own task group, each resolving an
asyncio future the caller awaits. Stopping the server ends that task, which leaves the contexts
in order: the SDK closes stdin, waits, then kills the server's process group.

Status: ``stopped`` → ``starting`` → ``running``; ``failed`` (did not start), ``crashed`` (the
connection closed under a call), back to ``stopped`` after ``stop()``. ``last_error`` says why.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Generic, Literal, TextIO, TypeVar

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.features.mcp.config import ServerConfig
from jupyter_agent.features.mcp.process import is_alive, kill_group, new_pidfile, read_pid
from jupyter_agent.features.mcp.tools import forget_listing
from jupyter_agent.features.mcp.transport import Transport, open_transport, reachable
from jupyter_agent.messages import JsonObject

if TYPE_CHECKING:
    import anyio
    import mcp_types
    from mcp import ClientSession
    from mcp.client.session import IncomingMessage

Status = Literal["stopped", "starting", "running", "failed", "crashed"]
_LOG_TAIL_CHARS = 400  # of the server's stderr, quoted when it fails to start
_STOP_TIMEOUT = 8.0  # the SDK's own shutdown is bounded (about 2 s + 2 s + 2 s)
_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class ServerUnavailable(RuntimeError, JupyterAgentError):
    """The server is not running (failed to start, crashed, stopped); the text says why."""


@dataclass
class _Job(Generic[_T_co]):
    action: Callable[[ClientSession], Awaitable[_T_co]]
    future: asyncio.Future[_T_co]
    scope: anyio.CancelScope | None = None
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True
        if self.scope is not None:
            self.scope.cancel()


@dataclass
class ServerConnection:
    config: ServerConfig
    log_path: Path | None = None
    redact: Callable[[str], str] = lambda text: text
    status: Status = "stopped"
    last_error: str = ""
    tools: list[mcp_types.Tool] = field(default_factory=list)  # as last listed
    tools_stale: bool = False  # the server announced notifications/tools/list_changed
    pid: int | None = None
    start_seconds: float | None = None
    on_crash: Callable[["ServerConnection", str], object] | None = None
    _task: asyncio.Task[None] | None = None
    _ready: asyncio.Future[object] | None = None
    _jobs: asyncio.Queue[_Job[object] | None] | None = None
    _pidfile: Path | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> asyncio.Future[object]:
        """Starts the server unless it is starting or running; returns the future of its readiness."""
        if self.alive and self.status in ("starting", "running") and self._ready is not None:
            return self._ready
        loop = asyncio.get_running_loop()
        self.status, self.last_error, self.tools, self.tools_stale, self.pid = "starting", "", [], False, None
        self._ready, self._jobs = loop.create_future(), asyncio.Queue()
        # A context of its own: the server outlives the turn that started it (and its interrupt routing).
        self._task = loop.create_task(self._serve(self._ready, self._jobs), context=contextvars.Context())
        return self._ready

    async def wait_ready(self, timeout: float | None = None) -> None:
        """Returns once running; raises ``ServerUnavailable`` (and stops the server) if it does not start in time."""
        ready = self.start()
        timeout = self.config.start_timeout if timeout is None else timeout
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except asyncio.TimeoutError:
            self._fail(f"did not start within {timeout:g} s")
            await self.stop(status="failed")
            raise ServerUnavailable(self.last_error) from None
        except ServerUnavailable:
            await self.stop(status="failed")  # a transport error while starting: nothing to wait for
            raise

    async def call_tool(self, tool: str, arguments: JsonObject, timeout: float | None = None) -> mcp_types.CallToolResult:
        timeout = self.config.call_timeout if timeout is None else timeout
        return await self._submit(lambda session: session.call_tool(tool, arguments, read_timeout_seconds=timeout), timeout + 5.0)

    async def refresh_tools(self) -> list[mcp_types.Tool]:
        self.tools_stale = False
        listed = await self._submit(_list_tools, self.config.call_timeout)
        forget_listing(self.tools)
        self.tools = listed
        return self.tools

    async def stop(self, status: Status = "stopped") -> None:
        task, jobs = self._task, self._jobs
        if task is not None and not task.done() and jobs is not None:
            if self.status == "running":
                jobs.put_nowait(None)  # a clean exit: the SDK closes stdin, then escalates
            else:
                self.kill_now()  # still starting: it does not answer, there is nothing to wind down
                task.cancel()
            await asyncio.wait({task}, timeout=_STOP_TIMEOUT)
            if not task.done():
                task.cancel()
        self.kill_now()  # whatever the SDK could not end
        if self.status in ("starting", "running") or status != "stopped":
            self.status = status

    def kill_now(self) -> None:
        """Kills the server's process group at once (kernel shutdown, where no event loop may run)."""
        pid, self.pid = self.pid or self._read_pid(), None
        if pid is not None and is_alive(pid):
            kill_group(pid)

    # -- the server's task --------------------------------------------------------------------

    async def _serve(self, ready: asyncio.Future[object], jobs: asyncio.Queue[_Job[object] | None]) -> None:
        started = time.perf_counter()
        log = self._open_log()
        try:
            import anyio
            from mcp import ClientSession

            if self.config.transport == "http":
                await reachable(self.config.url)
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(log))
                session = await stack.enter_async_context(ClientSession(read, write, message_handler=self._on_message))
                await session.initialize()
                self.pid = self._read_pid()
                self.tools = await _list_tools(session)
                self.start_seconds = time.perf_counter() - started
                self.status = "running"
                if not ready.done():
                    ready.set_result(None)
                async with anyio.create_task_group() as group:
                    while True:
                        job = await jobs.get()
                        if job is None:
                            group.cancel_scope.cancel()
                            break
                        group.start_soon(self._run_job, session, job)
        except BaseException as error:  # noqa: BLE001 - recorded, and handed to whoever waits
            if self.status == "starting":
                self._fail(f"{_describe(error)}{self._log_tail(log)}")
            if isinstance(error, (asyncio.CancelledError, KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self._drain(jobs, ready)
            if log is not None:
                log.close()
            if self._pidfile is not None:
                self._pidfile.unlink(missing_ok=True)

    async def _run_job(self, session: ClientSession, job: _Job[object]) -> None:
        import anyio
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        with anyio.CancelScope() as scope:
            job.scope = scope
            if job.cancelled:
                scope.cancel()
            try:
                result = await job.action(session)
            except MCPError as error:
                if error.error.code == CONNECTION_CLOSED and self.status == "running":
                    self._crashed()
                _settle(job.future, error=error)
                return
            except Exception as error:  # noqa: BLE001 - the caller reads it
                _settle(job.future, error=error)
                return
            _settle(job.future, result=result)
        if not job.future.done():
            job.future.cancel()

    def _crashed(self) -> None:
        self.status = "crashed"
        self.last_error = "the server closed the connection"
        if self._jobs is not None:
            self._jobs.put_nowait(None)  # leave the session: the next turn that needs it starts it again
        if self.on_crash is not None:
            self.on_crash(self, self.last_error)

    async def _submit(self, action: Callable[[ClientSession], Awaitable[_T]], timeout: float) -> _T:
        if self.status != "running" or self._jobs is None:
            raise ServerUnavailable(self._unavailable())
        job: _Job[_T] = _Job(action, asyncio.get_running_loop().create_future())
        self._jobs.put_nowait(job)
        try:
            return await asyncio.wait_for(asyncio.shield(job.future), timeout)
        except asyncio.TimeoutError:
            job.cancel()
            raise ServerUnavailable(f"MCP server {self.name!r} did not answer within {timeout:g} s") from None
        except asyncio.CancelledError:
            job.cancel()  # the turn was stopped: the SDK tells the server the request is cancelled
            raise

    def _unavailable(self) -> str:
        state = {
            "stopped": "is not running",
            "starting": "is still starting",
            "failed": "failed to start",
            "crashed": "crashed",
        }.get(self.status, self.status)
        return f"MCP server {self.name!r} {state}" + (f": {self.last_error}" if self.last_error else "")

    async def _on_message(self, message: IncomingMessage) -> None:
        from mcp_types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self.tools_stale = True
        elif isinstance(message, Exception) and self.status == "starting":
            # The transport failed (an HTTP server that is not there): fail now, not at the timeout.
            self._fail(_describe(message))
            if self._ready is not None:
                _settle(self._ready, error=ServerUnavailable(self._unavailable()))

    def _transport(self, log: TextIO | None) -> Transport:
        if self.config.transport == "stdio" and sys.platform != "win32":
            self._pidfile = new_pidfile(self.name)
        return open_transport(self.config, self.log_path if log is not None else None, self._pidfile)

    def _open_log(self) -> TextIO | None:
        if self.log_path is None or self.config.transport == "http":
            return None
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)  # stderr may hold tokens
            log = os.fdopen(descriptor, "a", encoding="utf-8", errors="replace")  # closed by _serve
        except OSError:
            return None
        log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {self.name}: {self.redact(self.config.describe())}\n")
        log.flush()
        self._log_start = log.tell()
        return log

    def _log_tail(self, log: TextIO | None) -> str:
        if log is None or self.log_path is None:
            return ""
        try:
            log.flush()
            with open(self.log_path, encoding="utf-8", errors="replace") as handle:
                start = getattr(self, "_log_start", 0)
                size = handle.seek(0, os.SEEK_END)
                # Past the cap the log was rotated: its start is then in the new file's first bytes.
                handle.seek(max(start if start <= size else 0, size - 64 * 1024))
                text = handle.read().strip()
        except OSError:
            return ""
        if not text:
            return ""
        lines = " | ".join(line.strip() for line in text[-_LOG_TAIL_CHARS:].splitlines() if line.strip())
        return f" (its log says: {self.redact(lines)})"

    def _read_pid(self) -> int | None:
        return read_pid(self._pidfile) if self._pidfile is not None else None

    def _fail(self, text: str) -> None:
        self.status = "failed"
        self.last_error = self.redact(text)

    def _drain(self, jobs: asyncio.Queue[_Job[object] | None], ready: asyncio.Future[object]) -> None:
        """Nothing waits forever on a server that is gone."""
        if not ready.done():
            ready.set_exception(ServerUnavailable(self._unavailable()))
            ready.exception()  # retrieved: a start nobody awaited must not log "never retrieved"
        while not jobs.empty():
            job = jobs.get_nowait()
            if job is not None:
                _settle(job.future, error=ServerUnavailable(self._unavailable()))
        if self.status == "running":
            self.status = "stopped"


async def _list_tools(session: ClientSession) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a paginator that never ends must not hang the turn
        from mcp_types import PaginatedRequestParams

        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _settle(future: asyncio.Future[object], *, result: object = None, error: BaseException | None = None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _describe(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        inner = [item for item in error.exceptions if not isinstance(item, asyncio.CancelledError)]
        if inner:
            return _describe(inner[0])
    from mcp import MCPError

    if isinstance(error, MCPError):
        return error.error.message
    return str(error) or type(error).__name__
