"""The HTTP side: a streamable-HTTP MCP endpoint on 127.0.0.1, served by uvicorn on the kernel's loop.

The socket is bound before anything starts, so a port in use is an error of the ``%agent serve``
cell, not of a background task. uvicorn serves on the running loop (no thread: the tools touch
the user's namespace, which belongs to the kernel's thread) and never installs signal handlers
(SIGINT is the kernel's Interrupt). Every request must carry ``Authorization: Bearer <token>``
(compared in constant time) or gets 401, counted (``BearerGate.refused``, shown in the serve
panel); only ``/mcp`` exists; the SDK checks the Host and Origin headers (DNS rebinding). A client
session that has no request in flight for ``idle_seconds`` expires (its id then answers 404 and the
client initializes again), and at most ``max_sessions`` are open at once (503 past that): clients
that never close theirs (Inspector, health checks) cannot pile them up. ``close()`` stops listening
at once, so the port is closed when the cell that stops the server returns; open connections are
then wound down within a second.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import socket
from typing import TYPE_CHECKING, Callable, Iterator

from jupyter_agent.errors import JupyterAgentError

if TYPE_CHECKING:
    import uvicorn
    from mcp.server.lowlevel import Server
    from starlette.types import ASGIApp, Receive, Scope, Send

HOST = "127.0.0.1"
PATH = "/mcp"
GRACEFUL_SECONDS = 1.0  # open streams (a client's GET stream never ends by itself) get this long
UNAUTHORIZED = "missing or wrong bearer token: use the token %agent serve printed"


class PortUnavailableError(OSError, JupyterAgentError):
    """The port cannot be bound (in use, or privileged); the text names it."""


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: a free port the system picks)."""
    if not 0 <= port <= 65535:
        raise PortUnavailableError(f"--port takes a port number from 0 to 65535, got {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A restarted server gets its port back while the old connections linger in TIME_WAIT.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise PortUnavailableError(f"cannot listen on {HOST}:{port}: {error.strerror or error}") from None
    sock.setblocking(False)
    return sock


def url_of(sock: socket.socket) -> str:
    return f"http://{HOST}:{sock.getsockname()[1]}{PATH}"


class BearerGate:
    """ASGI: ``/mcp`` with the right bearer token goes to the MCP app; anything else is refused."""

    def __init__(self, app: ASGIApp, token: str, on_refused: Callable[[int], None] = lambda count: None) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self.refused = 0
        self.on_refused = on_refused  # told the new count after each refusal (the serve panel shows it)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan (it is off) and no websockets
        if scope["path"].rstrip("/") != PATH:
            await _respond(send, 404, {"error": f"not found: the MCP endpoint is {PATH}"})
            return
        given = next((value for key, value in scope["headers"] if key == b"authorization"), b"")
        if not hmac.compare_digest(given, self._expected):
            self.refused += 1
            self.on_refused(self.refused)
            await _respond(send, 401, {"error": UNAUTHORIZED}, [(b"www-authenticate", b'Bearer realm="jupyter-agent"')])
            return
        await self.app(scope, receive, send)


async def _respond(send: Send, status: int, body: dict[str, str], headers: list[tuple[bytes, bytes]] | None = None) -> None:
    data = json.dumps(body).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": data})


class HttpEndpoint:
    """``serve()`` (the server's task) runs the SDK's session manager and uvicorn on ``sock``."""

    def __init__(
        self,
        server: Server,
        sock: socket.socket,
        token: str,
        *,
        idle_seconds: float = 600.0,
        max_sessions: int = 100,
        on_refused: Callable[[int], None] = lambda count: None,
    ) -> None:
        self.server = server
        self.sock = sock
        self.port = sock.getsockname()[1]
        self.token = token
        self.idle_seconds = idle_seconds
        self.max_sessions = max_sessions
        self.on_refused = on_refused
        self.gate: BearerGate | None = None
        self._uvicorn: uvicorn.Server | None = None
        self.closed = False

    async def serve(self) -> None:
        import uvicorn
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{HOST}:{self.port}", f"localhost:{self.port}"],
            allowed_origins=[f"http://{HOST}:{self.port}", f"http://localhost:{self.port}"],
        )
        manager = StreamableHTTPSessionManager(
            app=self.server,
            security_settings=security,
            session_idle_timeout=self.idle_seconds,
            max_sessions=self.max_sessions,
        )
        self.gate = BearerGate(manager.handle_request, self.token, self.on_refused)
        config = uvicorn.Config(
            self.gate,
            lifespan="off",
            log_config=None,  # the kernel's logging stays as it is
            log_level="warning",
            access_log=False,
            proxy_headers=False,
            server_header=False,
            ws="none",
            timeout_graceful_shutdown=int(GRACEFUL_SECONDS) or 1,
        )
        self._uvicorn = _kernel_uvicorn(config)
        if self.closed:
            return
        async with manager.run():
            await self._uvicorn.serve(sockets=[self.sock])

    def close(self) -> None:
        """Stops listening now (synchronously) and asks uvicorn to wind down."""
        self.closed = True
        if self._uvicorn is not None:
            for listener in getattr(self._uvicorn, "servers", []):
                listener.close()
            self._uvicorn.should_exit = True
        self.sock.close()


def _kernel_uvicorn(config: uvicorn.Config) -> uvicorn.Server:
    import uvicorn

    class KernelUvicorn(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # SIGINT and SIGTERM stay the kernel's

    return KernelUvicorn(config)


__all__ = ["HOST", "PATH", "UNAUTHORIZED", "BearerGate", "HttpEndpoint", "PortUnavailableError", "bind", "url_of"]
