"""The demo MCP server for tests: stdio configurations and one on streamable HTTP at 127.0.0.1."""

import os
import socket
import subprocess
import sys

from jupyter_agent.features.mcp.config import ServerConfig
from jupyter_agent.features.mcp.process import new_pidfile
from jupyter_agent.features.mcp.transport import LAUNCHER
from jupyter_agent.testing import mcp_demo_server
from jupyter_agent.testing.waiting import listening, wait_until_blocking

DEMO = mcp_demo_server.__file__


def stdio_config(name="demo", *extra, **options) -> ServerConfig:
    return ServerConfig(name=name, source="test", transport="stdio", command=sys.executable, args=(DEMO, *extra), **options)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HttpDemo:
    """The demo server serving streamable HTTP on a free port of 127.0.0.1 (a subprocess)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        # Through the launcher: the server dies with the test process even if pytest itself is killed.
        self.pidfile = new_pidfile("http-demo")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-S",
                "-I",
                str(LAUNCHER),
                "--pidfile",
                str(self.pidfile),
                "--parent",
                str(os.getpid()),
                "--",
                sys.executable,
                DEMO,
                "--http",
                str(self.port),
            ],
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        try:
            wait_until_blocking(lambda: listening(self.port), 30, "the HTTP demo server", every=0.05)
        except AssertionError:
            self.stop()
            raise RuntimeError("the HTTP demo server did not start") from None

    def stop(self) -> None:
        self.process.terminate()  # the launcher ends the server with itself
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self.pidfile.unlink(missing_ok=True)
