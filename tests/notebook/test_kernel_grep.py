"""A catastrophic regular expression in the grep tool, in a real kernel: the notebook keeps
answering while it runs, and Stop ends the run at once."""

import time

import pytest
from kernel_harness import notebook_kernel

pytestmark = pytest.mark.kernel

SLOW_FILES = 15  # each costs the search its per-file time limit (2 s): longer than the test needs


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kernel")
    for number in range(SLOW_FILES):
        (folder / f"slow{number:02d}.txt").write_text("a" * 5000 + "!\n")
    harness = notebook_kernel(folder)
    yield harness
    harness.shutdown()


def test_the_kernel_answers_during_a_catastrophic_grep_and_stop_ends_it(kernel):
    kernel.execute("script('backtracker', tool_calls(call('grep', {'pattern': '(a+)+$'})), reply('never'))")
    msg_id, _ = kernel.agent_cell("-m backtracker -s backtracking", "Find the runs of a")
    kernel.wait_for(lambda: "(a+)+$" in kernel.widget_text(msg_id), what="the grep card")
    for _ in range(3):
        reply = kernel.execute("1+1")
        assert reply.elapsed < 1.0, f"1+1 took {reply.elapsed:.2f} s during the grep"
    assert kernel.evaluate("turn_done('backtracking')") == "False"  # the grep was still running
    stopped = time.monotonic()
    kernel.click(kernel.button(msg_id, "Stop").comm_id)
    kernel.wait_turn("backtracking", timeout=15)
    assert time.monotonic() - stopped < 5
    assert kernel.evaluate("last_turn('backtracking').result.reason") == "'aborted'"
    assert kernel.evaluate("unpaired_calls('backtracking')") == "[]"
