"""The SDK transports a server connects through: stdio (through the launcher) or streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TextIO, TypeAlias

from jupyter_agent.features.mcp.config import ServerConfig
from jupyter_agent.features.mcp.launcher import LOG_MAX_BYTES

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import TransportStreams

LAUNCHER = Path(__file__).with_name("launcher.py")
# What the SDK's transports are: an async context manager of the (read, write) streams.
Transport: TypeAlias = "AbstractAsyncContextManager[TransportStreams]"


def open_transport(config: ServerConfig, log_path: Path | None, pidfile: Path | None) -> Transport:
    """The transport's async context manager; a stdio server's stderr goes to ``log_path`` (capped
    by the launcher) and its launcher's pid to ``pidfile``."""
    if config.transport == "http":
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(
            headers=dict(config.headers), timeout=httpx2.Timeout(30.0, read=max(300.0, config.call_timeout))
        )
        return _http(streamable_http_client(config.url, http_client=client), client)
    from mcp import StdioServerParameters, stdio_client

    if sys.platform == "win32":  # no fork, no PR_SET_PDEATHSIG: the SDK's job object ends the tree
        log = open(log_path, "a", encoding="utf-8", errors="replace") if log_path else None  # noqa: SIM115
        return stdio_client(
            StdioServerParameters(command=config.command, args=list(config.args), env=dict(config.env), cwd=config.cwd),
            errlog=_errlog(log),
        )
    supervision = ["--parent", str(os.getpid())]
    if pidfile is not None:
        supervision += ["--pidfile", str(pidfile)]
    if log_path is not None:
        supervision += ["--log", str(log_path), "--log-max", str(LOG_MAX_BYTES)]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-S", "-I", str(LAUNCHER), *supervision, "--", config.command, *config.args],
        env=dict(config.env),
        cwd=config.cwd,
    )
    return stdio_client(params, errlog=_errlog(None))  # the launcher writes the server's stderr to its log


def _errlog(log: TextIO | None) -> TextIO:
    # Without a log file the server's stderr is dropped: in a kernel, sys.stderr is the cell.
    return log if log is not None else open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives with the server


async def reachable(url: str) -> None:
    """Fails fast when nothing listens at the URL: the SDK would log the refusal and wait out the timeout."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.open_connection(parts.hostname, port)
    except (ConnectionRefusedError, socket.gaierror) as error:
        raise ConnectionError(f"cannot connect to {parts.hostname}:{port} ({error.strerror or error})") from None
    except OSError:
        return  # a proxy or a slow network may still get through: let the SDK try
    writer.close()


class _http:
    """The streamable HTTP transport together with the httpx client it owns."""

    def __init__(self, transport: Transport, client: httpx2.AsyncClient) -> None:
        self._transport, self._client = transport, client

    async def __aenter__(self) -> TransportStreams:
        await self._client.__aenter__()
        try:
            return await self._transport.__aenter__()
        except BaseException:
            await self._client.__aexit__(None, None, None)
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        try:
            return await self._transport.__aexit__(kind, error, traceback)
        finally:
            await self._client.__aexit__(None, None, None)
