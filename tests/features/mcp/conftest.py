import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # mcp_servers

from mcp_servers import HttpDemo  # noqa: E402


@pytest.fixture(scope="session")
def http_server():
    """The demo server on streamable HTTP at 127.0.0.1; yields its URL."""
    demo = HttpDemo()
    yield demo.url
    demo.stop()
