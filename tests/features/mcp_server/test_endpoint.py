"""The HTTP endpoint in process: binding, the bearer gate, and a whole server's start and stop."""

import pytest

from jupyter_agent.features.mcp_server import PortUnavailableError
from jupyter_agent.features.mcp_server.endpoint import UNAUTHORIZED, BearerGate, bind

pytestmark = pytest.mark.anyio


def test_a_port_in_use_or_out_of_range_is_refused_by_name():
    taken = bind(0)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(PortUnavailableError, match=f"cannot listen on 127.0.0.1:{port}: Address already in use"):
            bind(port)
    finally:
        taken.close()
    with pytest.raises(PortUnavailableError, match="from 0 to 65535, got 70000"):
        bind(70000)


async def asgi(gate, path="/mcp", headers=()):
    sent = []

    async def send(message):
        sent.append(message)

    await gate({"type": "http", "path": path, "headers": list(headers)}, None, send)
    return sent


async def test_the_gate_passes_the_right_token_only():
    passed = []

    async def app(scope, receive, send):
        passed.append(scope["path"])

    gate = BearerGate(app, "s3cret-token")
    assert await asgi(gate, headers=[(b"authorization", b"Bearer s3cret-token")]) == [] and passed == ["/mcp"]
    for headers in ([], [(b"authorization", b"Bearer wrong")], [(b"authorization", b"s3cret-token")]):
        start, body = await asgi(gate, headers=headers)
        assert start["status"] == 401 and (b"www-authenticate", b'Bearer realm="jupyter-agent"') in start["headers"]
        assert UNAUTHORIZED.encode() in body["body"]
    start, _ = await asgi(gate, path="/other", headers=[(b"authorization", b"Bearer s3cret-token")])
    assert start["status"] == 404 and gate.refused == 3 and passed == ["/mcp"]
