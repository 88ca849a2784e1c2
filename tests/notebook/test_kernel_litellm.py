"""A real model path in a real kernel: litellm (preloaded at %load_ext) against the fake provider
over HTTP on 127.0.0.1. One kernel for the module: importing litellm there takes seconds.
"""

import re

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.testing.fake_provider import FakeProvider, hanging, http_error, rejected_key, text

pytestmark = pytest.mark.kernel

SECRET = "sk-test-secret-0123456789"
FIRST_TURN_TIMEOUT = 90  # the first request waits for litellm's import in the kernel (~8 s, more on a busy CI)


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


@pytest.fixture(scope="module")
def kernel(tmp_path_factory, provider):
    # No model preset: %load_ext starts importing litellm in the background.
    harness = notebook_kernel(tmp_path_factory.mktemp("litellm-kernel"), model="", notebook_name="model.ipynb")
    harness.execute(
        f'%config AgentMagics.model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        f'%config AgentMagics.api_key = "{SECRET}"'
    )
    yield harness
    harness.shutdown()


def plain(html):
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_streamed_text_from_the_provider_reaches_the_panel(kernel, provider):
    provider.queue(text("Hello ", "from ", "the fake ", "provider.", delay=0.05))
    msg_id, reply = kernel.agent_cell("-s http", "Say hello")
    assert reply.ok
    kernel.wait_turn("http", timeout=FIRST_TURN_TIMEOUT)
    assert "Hello from the fake provider." in plain(kernel.widget_text(msg_id))
    assert kernel.evaluate("last_turn('http').result.reason") == "'completed'"
    body = provider.requests[-1]
    prompt = body["messages"][-1]["content"]  # the turn's context (date, notebook outline) leads it
    assert (
        body["stream"] is True
        and prompt.startswith("<turn-context>\nToday: ")
        and prompt.endswith("</turn-context>\n\nSay hello")
    )
    assert provider.request_headers[-1]["authorization"] == f"Bearer {SECRET}"
    session_file = kernel.folder / "model.agent" / "http.jsonl"
    assert "Hello from the fake provider." in session_file.read_text()
    assert SECRET not in session_file.read_text()  # the key is never written


def test_a_provider_error_shows_in_the_panel(kernel, provider):
    provider.queue(http_error(401, "Incorrect API key provided: sk-test***", "invalid_request_error", "invalid_api_key"))
    msg_id, _ = kernel.agent_cell("-s http-error", "hello")
    kernel.wait_turn("http-error", timeout=FIRST_TURN_TIMEOUT)
    shown = plain(kernel.widget_text(msg_id))
    assert "Incorrect API key provided" in shown
    assert kernel.evaluate("last_turn('http-error').result.reason") == "'error'"


def test_a_configured_key_echoed_in_a_401_body_is_redacted_in_panel_and_session_file(kernel, provider):
    provider.queue(rejected_key())
    msg_id, _ = kernel.agent_cell("-s echoed-key", "hello")
    kernel.wait_turn("echoed-key", timeout=FIRST_TURN_TIMEOUT)
    assert provider.request_headers[-1]["authorization"] == f"Bearer {SECRET}"
    shown = plain(kernel.widget_text(msg_id))
    assert "Incorrect API key provided: [redacted:api_key]" in shown
    session_file = (kernel.folder / "model.agent" / "echoed-key.jsonl").read_text()
    assert "Incorrect API key provided" in session_file
    for seen in (shown, session_file):
        assert SECRET[:10] not in seen  # not even the prefix a clipped line could leave


def test_kernel_interrupt_stops_a_run_waiting_on_the_provider(kernel, provider):
    provider.queue(hanging("Working ", "on it"))
    msg_id, _ = kernel.agent_cell("-s http-hang", "Take a while")
    kernel.wait_for(lambda: "Working on it" in plain(kernel.widget_text(msg_id)), FIRST_TURN_TIMEOUT, "the first words")
    disconnects = len(provider.disconnects)
    kernel.interrupt()
    kernel.wait_turn("http-hang", timeout=15)
    assert kernel.evaluate("last_turn('http-hang').result.reason") == "'aborted'"
    assert provider.wait_for_disconnect(disconnects + 1, timeout=5) is not None  # the HTTP stream was closed
    assert kernel.is_alive() and kernel.evaluate("3 * 3") == "9"


def test_a_stalled_provider_ends_the_turn_after_the_configured_stream_timeout(kernel, provider):
    provider.queue(hanging("Working ", "on it"))
    kernel.execute("%config AgentMagics.stream_timeout = 0.5")
    try:
        msg_id, _ = kernel.agent_cell("-s http-stall", "Take a while")
        kernel.wait_turn("http-stall", timeout=FIRST_TURN_TIMEOUT)
    finally:
        kernel.execute("%config AgentMagics.stream_timeout = None")
    assert "openai: no data from the provider for 0.5 s" in plain(kernel.widget_text(msg_id))
    assert kernel.evaluate("last_turn('http-stall').result.reason") == "'error'"
