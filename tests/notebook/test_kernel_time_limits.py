"""Time limits on the agent's python calls in a real kernel: a hung call frees the turn, the kernel lives."""

import ast

import pytest
from kernel_harness import notebook_kernel

pytestmark = pytest.mark.kernel

LIMITED_TURN_TIMEOUT = 45  # the call is interrupted after 2 s; the rest bounds a loaded machine


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("time-limits"))
    yield harness
    harness.shutdown()


def test_a_call_past_python_timeout_is_an_error_result_and_the_kernel_answers(kernel):
    kernel.execute("%config AgentMagics.python_timeout = 2.0")
    try:
        kernel.execute(
            "m = script('sleeper', tool_calls(call('python', {'code': 'import time\\nprint(\"before\")\\ntime.sleep(60)'})),"
            " reply('It timed out.'))"
        )
        msg_id, reply = kernel.agent_cell("-m sleeper -s sleepy -p yolo", "Sleep a minute.")
        assert reply.ok
        kernel.wait_turn("sleepy", timeout=LIMITED_TURN_TIMEOUT)
        assert kernel.evaluate("last_turn('sleepy').result.reason") == "'completed'"
        result = kernel.evaluate("last_turn('sleepy').result.messages[-2]")
        text = ast.literal_eval(kernel.evaluate("last_turn('sleepy').result.messages[-2].content[0].text"))
        assert "is_error=True" in result
        assert text.startswith("Timed out: the code was still running at its 2 s limit and was interrupted"), text
        assert "up to 2 s (AgentMagics.python_timeout)" in text and "before" in text
        assert kernel.evaluate("1+1") == "2"
        assert "Timed out" in kernel.widget_text(msg_id)
    finally:
        kernel.execute("%config AgentMagics.python_timeout = 600.0")


def test_the_model_may_ask_for_less_than_the_limit_never_more(kernel):
    kernel.execute(
        "m = script('asker', tool_calls(call('python', {'code': 'import time; time.sleep(60)', 'timeout': 1.5})),"
        " reply('Too slow.'))"
    )
    kernel.agent_cell("-m asker -s asking -p yolo", "Try it quickly.")
    kernel.wait_turn("asking", timeout=LIMITED_TURN_TIMEOUT)
    text = ast.literal_eval(kernel.evaluate("last_turn('asking').result.messages[-2].content[0].text"))
    assert text.startswith("Timed out: the code was still running at its 1.5 s limit"), text
    assert "up to 600 s (AgentMagics.python_timeout)" in text
    schema = kernel.evaluate(
        "[t for t in m.requests[0].context.tools if t.name == 'python'][0].parameters['properties']['timeout']"
    )
    assert "default and maximum 600" in schema
