"""``McpServe``: this kernel's MCP server, from ``start()`` to the end of its task.

It owns the listening socket, the SDK's low-level ``Server`` (``tools/list`` and ``tools/call``,
answered by ``ExternalCalls``), the task that serves HTTP on the kernel's loop, and the hooks that
end it: ``stop()`` (``%agent serve stop``, the panel's Stop button, ``%unload_ext``), and the
interpreter's exit (a kernel shutdown), which closes the socket even if the loop never runs again.
The task's end leaves the serve cell's panel as what a saved notebook keeps (its calls), and the
session synced. One server per kernel: ``serving()`` is it, or None.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import secrets
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.features.mcp_server.adapters import client_name, mcp_result, mcp_tools
from jupyter_agent.features.mcp_server.calls import CodeRunner, ExternalCalls
from jupyter_agent.features.mcp_server.cell_turns import CellTurns
from jupyter_agent.features.mcp_server.endpoint import HttpEndpoint, bind, url_of
from jupyter_agent.features.mcp_server.record import CallRecorder

if TYPE_CHECKING:
    from pathlib import Path

    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

    from jupyter_agent.features.feature import TurnSession
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.runtime.events import RunEvent
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision, PermissionMode
    from jupyter_agent.runtime.privacy import PrivacyGate

SERVER_NAME = "jupyter-agent"
INSTRUCTIONS = (
    "These tools work inside a live Jupyter kernel, in the notebook's own namespace: `variables` and "
    "`inspect` read it, `python` runs code there as a cell would (the user approves it in the notebook "
    "unless they chose otherwise), and the notebook tools read and change the notebook itself. "
    "Variables you define persist and the user sees them."
)
TOKEN_BYTES = 24  # 192 bits, URL-safe: 32 characters


class ServeRenderer(Protocol):
    """What the server uses of the serve cell's renderer (``notebook.renderer.Renderer``)."""

    def handle(self, event: RunEvent) -> None: ...
    async def ask(self, request: ApprovalRequest) -> Decision: ...
    def set_state(self, state: str, detail: str = "") -> None: ...
    def show_error(self, text: str) -> None: ...
    def finish(self) -> None: ...


class AlreadyServingError(RuntimeError, JupyterAgentError):
    pass


@dataclass
class ServeSettings:
    port: int = 0
    permissions: PermissionMode = "ask"
    cell_running: bool = True  # started from a cell, which is executing now
    # Clients that never close their sessions (health checks, Inspector) must not pile them up:
    session_idle_seconds: float = 600.0  # a session with no request in flight this long expires
    max_sessions: int = 100  # open at once; a client past that gets 503 until one expires


REGISTERED = "serve-client.json"  # beside the session: a client was given this notebook's server before
CLIENT_ENTRY_NAME = "jupyter-kernel"  # the name clients are told to register the server under


@dataclass
class McpServe:
    """What is served (``tools``), to whom (``token``), shown where (``renderer``), recorded where (``session``)."""

    tools: Sequence[AgentTool]
    session: TurnSession  # its store records the calls
    renderer: ServeRenderer  # the serve cell's
    shell: object  # the kernel's IPython shell: its cell events (``CellTurns``)
    settings: ServeSettings = field(default_factory=ServeSettings)
    after_call: Callable[[], None] = lambda: None
    run_code: CodeRunner | None = None  # how a python call's code runs (the notebook routes ■ into it)
    # What a result passes before it leaves the kernel: the data policy and secret redaction (None:
    # secrets only). The tools make their results under the same policy (their model copies).
    privacy: PrivacyGate | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(TOKEN_BYTES))
    url: str = ""
    task: asyncio.Task[None] | None = None
    loop: asyncio.AbstractEventLoop | None = None
    calls: ExternalCalls | None = None
    stopped: bool = False
    replaces: bool = False  # a server of this notebook was given to clients before: they must replace it
    _endpoint: HttpEndpoint | None = None
    _cell_turns: CellTurns | None = None
    _recorder: CallRecorder | None = None
    _refusal_shown: asyncio.TimerHandle | None = None

    @property
    def port(self) -> int:
        return self._endpoint.port if self._endpoint is not None else 0

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def refused(self) -> int:
        gate = self._endpoint.gate if self._endpoint is not None else None
        return gate.refused if gate is not None else 0

    def start(self) -> None:
        """Binds the port and starts serving on the running loop; raises if another server runs."""
        global _serving
        running = serving()
        if running is not None:
            raise AlreadyServingError(f"already serving at {running.url}: stop it first with %agent serve stop")
        from jupyter_agent.runtime.permissions import PermissionPolicy

        sock = bind(self.settings.port)  # a port in use fails here, in the cell
        self.url = url_of(sock)
        self.loop = asyncio.get_running_loop()
        renderer = self.renderer
        self._cell_turns = CellTurns(self.shell, cell_running=self.settings.cell_running)
        self._recorder = CallRecorder(self.session, on_error=renderer.show_error)
        self.calls = ExternalCalls(
            self.tools,
            policy=PermissionPolicy(self.settings.permissions, prompt=renderer.ask),
            emit=renderer.handle,
            recorder=self._recorder,
            cell_turns=self._cell_turns,
            after_call=self.after_call,
            run_code=self.run_code,
        )
        self._endpoint = HttpEndpoint(
            self._mcp_server(),
            sock,
            self.token,
            idle_seconds=self.settings.session_idle_seconds,
            max_sessions=self.settings.max_sessions,
            on_refused=self._refused,
        )
        self.replaces = _registered(self.session.path, self.url)
        self._cell_turns.install()
        # The task is made in the cell's context: the panel's last rendering goes to this cell.
        self.task = self.loop.create_task(self._serve())
        _serving = self
        atexit.register(self._close_at_exit)

    def stop(self) -> None:
        """Stops listening now; the task winds down open connections and finishes the panel."""
        if self.loop is not None and not _on_thread_of(self.loop):
            self.loop.call_soon_threadsafe(self.stop)  # a Stop click handled on a kernel subshell
            return
        self.stopped = True
        if self._endpoint is not None:
            self._endpoint.close()
        if self._cell_turns is not None:
            self._cell_turns.remove()

    async def wait_stopped(self, timeout: float = 10.0) -> None:
        if self.task is not None and not self.task.done():
            await asyncio.wait({self.task}, timeout=timeout)

    async def _serve(self) -> None:
        global _serving
        renderer = self.renderer
        assert self._endpoint is not None and self._recorder is not None
        try:
            renderer.set_state("running", self.state_text())
            await self._endpoint.serve()
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001 - shown in the panel: a background task's error lands in no cell
            _safely(renderer.show_error, f"The MCP server stopped: {type(error).__name__}: {error}")
        finally:
            self.stop()
            await self._recorder.drain()
            if _serving is self:
                _serving = None
            atexit.unregister(self._close_at_exit)
            _safely(renderer.set_state, "stopped", "no longer serving")
            _safely(renderer.finish)

    def _refused(self, count: int) -> None:
        """A request with a wrong token (a client still holding a stale one): counted in the panel."""
        if count == 1 or self.loop is None:
            self._show_refused()
        elif self._refusal_shown is None:  # a flood of them updates the panel once a second, not per request
            self._refusal_shown = self.loop.call_later(1.0, self._show_refused)

    def _show_refused(self) -> None:
        self._refusal_shown = None
        if not self.stopped:
            _safely(self.renderer.set_state, "running", self.state_text())

    def state_text(self) -> str:
        """The serve panel's state line: where it serves, and the requests refused so far."""
        refused = self.refused
        if not refused:
            return f"serving at {self.url}"
        return f"serving at {self.url} · {refused} refused request{'s' if refused != 1 else ''}: wrong token"

    def _close_at_exit(self) -> None:
        if self._endpoint is not None:
            self._endpoint.close()

    def _mcp_server(self) -> Server:
        import mcp_types
        from mcp.server.lowlevel import Server

        listing = mcp_tools(self.tools)
        calls = self.calls
        assert calls is not None
        from jupyter_agent.runtime.privacy import PrivacyGate

        gate = self.privacy or PrivacyGate("full")

        async def list_tools(
            ctx: ServerRequestContext, params: mcp_types.PaginatedRequestParams | None
        ) -> mcp_types.ListToolsResult:
            return mcp_types.ListToolsResult(tools=listing)

        async def call_tool(ctx: ServerRequestContext, params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
            session = ctx.session

            async def progress(count: float, message: str) -> None:
                await session.report_progress(count, None, message)

            result = await calls.call(params.name, params.arguments, client_name(session), progress)
            return mcp_result(gate.result(result))

        return Server(
            SERVER_NAME, version=_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
        )


_serving: McpServe | None = None


def serving() -> McpServe | None:
    """The kernel's running server, if any."""
    # One being stopped no longer counts: its port is closed already, its task only winds down.
    return _serving if _serving is not None and _serving.running and not _serving.stopped else None


def stop_serving() -> McpServe | None:
    """Stops the running server (``%unload_ext``); returns it, or None if none ran."""
    server = serving()
    if server is not None:
        server.stop()
    return server


def _registered(session_path: Path, url: str) -> bool:
    """Whether a server of this notebook was given to clients before (the marker beside its
    session), recording that one is now; a marker that cannot be written only costs the hint."""
    from pathlib import Path

    from jupyter_agent.files import atomic_write

    marker = Path(session_path).parent / REGISTERED
    before = marker.exists()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(marker, json.dumps({"name": CLIENT_ENTRY_NAME, "url": url}).encode(), mode=0o600, durable=False)
    except OSError:
        pass
    return before


def _on_thread_of(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return threading.current_thread() is threading.main_thread() and not loop.is_running()


def _safely(method: Callable[..., object], *args: object) -> None:
    try:
        method(*args)
    except Exception:  # noqa: BLE001 - the panel's failure must not hide the server's end
        pass


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("jupyter-agent")
    except PackageNotFoundError:
        return ""


__all__ = ["CLIENT_ENTRY_NAME", "AlreadyServingError", "McpServe", "ServeSettings", "serving", "stop_serving"]
