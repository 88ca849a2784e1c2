"""The tests' one way to wait: on a condition, or through a window in which nothing may happen."""

import asyncio
import subprocess
import sys
import threading

import pytest

from jupyter_agent.testing.waiting import (
    assert_quiet_for,
    assert_quiet_for_blocking,
    listening,
    wait_until,
    wait_until_blocking,
    wait_until_serving,
)

pytestmark = pytest.mark.anyio


async def test_wait_until_returns_the_conditions_value_once_true():
    found = []
    asyncio.get_running_loop().call_later(0.01, found.append, "it")
    assert await wait_until(lambda: found) == ["it"]


async def test_wait_until_awaits_a_coroutine_condition():
    checks = []

    async def ready():
        checks.append(1)
        return len(checks) >= 3 and "ready"

    assert await wait_until(ready) == "ready" and len(checks) == 3


async def test_wait_until_names_what_it_waited_for_when_it_times_out():
    with pytest.raises(AssertionError, match=r"^timed out after 0.05 s waiting for the answer$"):
        await wait_until(lambda: False, 0.05, "the answer")


async def test_a_quiet_window_fails_as_soon_as_it_happens_and_passes_when_nothing_does():
    events = []
    loop = asyncio.get_running_loop()
    started = loop.time()
    loop.call_later(0.01, events.append, "late")
    with pytest.raises(AssertionError, match=r"^a message happened within 5 s: \['late'\]$"):
        await assert_quiet_for(5, lambda: events, "a message")
    assert loop.time() - started < 4  # it failed when it happened, not at the end of the window
    await assert_quiet_for(0.02, lambda: [], "nothing")


def test_the_blocking_forms_pause_between_checks_with_what_they_are_given():
    pauses = []
    ticks = iter(range(100))
    assert wait_until_blocking(lambda: next(ticks) == 3, 5, pause=pauses.append, every=0.01) is True
    assert pauses == [0.01, 0.01, 0.01]
    with pytest.raises(AssertionError, match=r"^timed out after 0.02 s waiting for the condition$"):
        wait_until_blocking(lambda: None, 0.02)
    done = threading.Event()
    threading.Timer(0.01, done.set).start()
    with pytest.raises(AssertionError, match=r"^the event happened within 5 s: True$"):
        assert_quiet_for_blocking(5, done.is_set, "the event")
    assert_quiet_for_blocking(0.02, lambda: False)


def server(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


HTTP = """
import http.server, sys
httpd = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
"""


def test_a_started_server_is_waited_for_until_it_answers_and_one_that_exits_or_never_answers_is_named():
    process = server(HTTP)
    try:
        port = int(process.stdout.readline())
        wait_until_serving(f"http://127.0.0.1:{port}/", process, 30, "the file server")
        assert listening(port)
    finally:
        process.kill()
        process.wait()
    exits = server("raise SystemExit(3)")
    with pytest.raises(RuntimeError, match=r"^the broken server exited with 3$"):
        wait_until_serving("http://127.0.0.1:9/", exits, 30, "the broken server")
    silent = server("import time\nwhile True: time.sleep(1)")
    try:
        with pytest.raises(RuntimeError, match=r"^the silent server did not answer within 0.3 s$"):
            wait_until_serving("http://127.0.0.1:9/", silent, 0.3, "the silent server")
    finally:
        silent.kill()
        silent.wait()
