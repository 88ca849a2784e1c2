"""Kernel state in a real kernel: the namespace diff on the card and in %agent diff, undo of
variables (in-place changes included, big arrays refused rather than copied), and replay after a
restart with the fake provider over HTTP seeing no request.
"""

import re

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.testing.fake_provider import FakeProvider, call, text, tool_calls

pytestmark = pytest.mark.kernel

FIRST_TURN_TIMEOUT = 90  # the first live request waits for litellm's import in the kernel


def plain(html):
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("kernel-state"))
    yield harness
    harness.shutdown()


def test_the_card_and_diff_show_the_change_and_undo_reverts_it(kernel):
    kernel.execute("b = 5")
    kernel.execute("script('rebinder', tool_calls(call('python', {'code': 'a = 1; b = 99'})), reply('Done.'))")
    msg_id, _ = kernel.agent_cell("-m rebinder -p yolo -s rebind", "Set a and b")
    kernel.wait_turn("rebind")
    assert "Namespace: + a (int), ~ b (int)" in plain(kernel.widget_text(msg_id))
    diff = kernel.evaluate("_agent.agent_line('diff -s rebind').text")
    assert "step 1: + a (int), ~ b (int)" in diff
    undo = kernel.evaluate("_agent.agent_line('undo').text")
    assert "variable `a`: removed" in undo and "variable `b`: its value from before the step" in undo
    assert kernel.evaluate("'a' in globals(), b") == "(False, 5)"


def test_an_in_place_frame_change_is_undone_and_a_2_gb_array_is_not_copied(kernel):
    kernel.execute(
        "import numpy as np, pandas as pd, resource\n"
        "df = pd.DataFrame({'v': range(1000)})\n"
        "big = np.zeros(2**28)  # 2 GB of calloc'd pages: nothing is allocated until written\n"
        "rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
    )
    code = "df['x'] = 0\nbig[0] = 1.0"
    kernel.execute(f"script('mutator', tool_calls(call('python', {{'code': {code!r}}})), reply('Changed.'))")
    msg_id, _ = kernel.agent_cell("-m mutator -p yolo -s mutate", "Change df and big in place")
    kernel.wait_turn("mutate")
    assert "Namespace: ~ df (column x added), ~ big (values changed)" in plain(kernel.widget_text(msg_id))
    undo = kernel.evaluate("_agent.agent_line('undo').text")
    assert "variable `df`: its value from before the step" in undo
    assert "variable `big` **not restored** (2.0 GB, over the 100.0 MB snapshot limit)" in undo
    assert kernel.evaluate("list(df.columns), len(df), big[0]") == "(['v'], 1000, np.float64(1.0))"
    grown_kb = int(kernel.evaluate("resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before"))
    assert grown_kb < 512 * 1024  # no copy of the 2 GB array was ever made


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


def configure(harness, provider):
    harness.execute(
        f'%config AgentMagics.model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        '%config AgentMagics.api_key = "sk-test-replay"'
    )


def test_replay_after_a_restart_rebuilds_the_namespace_without_a_request(tmp_path, provider):
    harness = notebook_kernel(tmp_path, model="")
    try:
        configure(harness, provider)
        provider.queue(tool_calls(call("python", {"code": "total = sum(range(10))"})), text("The total is 45."))
        harness.agent_cell("-p yolo -s replayed", "Compute the total")
        harness.wait_turn("replayed", timeout=FIRST_TURN_TIMEOUT)
        assert harness.evaluate("total") == "45"
        requests = len(provider.requests)
        assert requests == 2

        harness.restart()
        harness.execute("%load_ext jupyter_agent")
        from kernel_harness import AGENT_TEST_SETUP

        harness.execute(AGENT_TEST_SETUP)
        configure(harness, provider)
        harness.execute('%config AgentMagics.replay = "auto"')
        msg_id, _ = harness.agent_cell("-s replayed", "Compute the total")
        harness.wait_turn("replayed")
        shown = plain(harness.widget_text(msg_id))
        assert "The total is 45." in shown and "Replayed the recorded turn 1" in shown
        assert harness.evaluate("total") == "45"  # rebuilt by the recorded python call, approved as recorded
        assert len(provider.requests) == requests  # nothing was sent to the provider

        provider.queue(text("Live again."))
        msg_id, _ = harness.agent_cell("--replay -s replayed", "Compute the total twice")  # an edited prompt
        harness.wait_turn("replayed", timeout=FIRST_TURN_TIMEOUT)
        shown = plain(harness.widget_text(msg_id))
        assert "running it live" in shown and "Live again." in shown
        assert len(provider.requests) == requests + 1
    finally:
        harness.shutdown()
