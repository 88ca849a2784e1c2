import base64
import os
import signal as signals
import sys
import threading

import pytest

from jupyter_agent import AbortController, RunCancelled
from jupyter_agent.testing.recording_watch import RecordingWatch
from jupyter_agent.tools import OutputCaps

pytestmark = pytest.mark.anyio

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def send_signal_when(event: threading.Event, signum: int) -> threading.Thread:
    """Sends ``signum`` to this process once the running code has set ``event``."""

    def wait_and_send():
        if event.wait(10):
            os.kill(os.getpid(), signum)

    thread = threading.Thread(target=wait_and_send, daemon=True)
    thread.start()
    return thread


async def test_variables_persist_and_the_last_value_is_shown(kernel, shell):
    assert await kernel.text("python", code="x = 41\nprint('hi')\nx + 1") == "hi\nOut: 42"
    assert await kernel.text("python", code="x * 2") == "Out: 82"
    assert shell.user_ns["x"] == 41


async def test_a_table_value_starts_on_its_own_line_so_its_columns_align(kernel):
    text = await kernel.text("python", code="import pandas as pd\npd.DataFrame({'north': [1, 22], 'south': [3, 4]})")
    assert text == "Out:\n   north  south\n0      1      3\n1     22      4"


async def test_trailing_semicolon_hides_the_value_and_no_output_is_said(kernel):
    assert await kernel.text("python", code="y = 3\ny;") == "(no output)"


async def test_stdout_and_stderr_are_captured_in_order_and_restored(kernel):
    stdout, stderr = sys.stdout, sys.stderr
    text = await kernel.text("python", code="import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')")
    assert text == "a\nb\nc"
    assert sys.stdout is stdout and sys.stderr is stderr


async def test_syntax_error(kernel):
    text = await kernel.error("python", code="def f(:\n    pass")
    assert "SyntaxError" in text and "\x1b[" not in text


async def test_exception_returns_the_traceback_without_colour_codes(kernel, shell):
    displayhook, publisher = shell.displayhook, shell.display_pub
    own_traceback = vars(shell).get("_showtraceback")  # IPython's test shell sets one of its own
    text = await kernel.error("python", code="print('before')\ndef boom():\n    return 1 / 0\nboom()")
    assert text.startswith("before\n")
    assert "ZeroDivisionError" in text and "boom()" in text and "\x1b[" not in text
    assert shell.displayhook is displayhook and shell.display_pub is publisher
    assert vars(shell).get("_showtraceback") is own_traceback and sys.displayhook is not None


async def test_keyboard_interrupt_in_an_infinite_loop_is_a_readable_result(kernel, shell):
    started = threading.Event()
    shell.user_ns["started"] = started
    send_signal_when(started, signals.SIGINT)
    stdout = sys.stdout
    text = await kernel.error("python", code="n = 1\nprint('looping')\nstarted.set()\nwhile True:\n    n += 1")
    assert text.startswith("Stopped after ") and "the user interrupted it (Stop or the kernel's Interrupt)" in text
    assert "looping" in text and "KeyboardInterrupt" not in text and "Traceback" not in text
    assert shell.user_ns["n"] > 1 and sys.stdout is stdout


async def test_run_cancelled_raised_by_the_notebook_handler_is_interrupted(kernel, shell):
    class AgentInterrupt(RunCancelled):
        pass

    controller = AbortController()

    def handler(signum, frame):
        controller.abort(AgentInterrupt())
        raise AgentInterrupt()

    started = threading.Event()
    shell.user_ns["started"] = started
    stdout = sys.stdout
    previous = signals.signal(signals.SIGUSR1, handler)
    try:
        send_signal_when(started, signals.SIGUSR1)
        tool = kernel.tools["python"]
        # RunCancelled, not ToolError: the loop records the call as stopped while running, not failed.
        with pytest.raises(RunCancelled, match=r"^Stopped after .*: the user interrupted it") as caught:
            await tool.execute(tool.parameters(code="started.set()\nwhile True:\n    pass"), controller.signal)
        assert "AgentInterrupt" not in str(caught.value) and "Traceback" not in str(caught.value)
    finally:
        signals.signal(signals.SIGUSR1, previous)
    assert sys.stdout is stdout


async def test_abort_while_the_code_ran_is_reported(kernel, shell):
    controller = AbortController()
    shell.user_ns["controller"] = controller
    tool = kernel.tools["python"]
    with pytest.raises(RunCancelled, match=r"^Stopped after .*: the run was stopped") as caught:
        await tool.execute(tool.parameters(code="print('partial')\ncontroller.abort()"), controller.signal)
    assert "partial" in str(caught.value)


async def test_figure_comes_back_as_an_image(kernel):
    result = await kernel("python", code="import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]);")
    assert not result.is_error
    images = [block for block in result.content if block.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data).startswith(PNG_MAGIC)
    again = await kernel("python", code="1")
    assert [block.type for block in again.content] == ["text"]


async def test_figure_as_last_value_is_returned_once(kernel):
    result = await kernel("python", code="import matplotlib.pyplot as plt\nfig = plt.figure()\nfig.gca().plot([1, 2])\nfig")
    assert [block.type for block in result.content] == ["text", "image"]
    assert result.content[0].text.startswith("Out: <Figure")


async def test_repr_png_objects_and_rich_displays(kernel, shell):
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

    class Picture:
        def _repr_png_(self):
            return png

    shell.user_ns["Picture"] = Picture
    result = await kernel("python", code="Picture()")
    image = [block for block in result.content if block.type == "image"][0]
    assert base64.b64decode(image.data) == png
    text = await kernel.text(
        "python", code="from IPython.display import display, HTML\ndisplay(HTML('<b>x</b>'))\ndisplay({'k': 1})"
    )
    assert text == "<IPython.core.display.HTML object>\n{'k': 1}"


async def test_ten_megabytes_of_output_are_capped_keeping_head_and_tail(kernel_with):
    kernel = kernel_with(data_policy="full")  # the output caps, not the data policy's sample
    code = "print('FIRST')\nfor i in range(200_000):\n    print('x' * 49)\nprint('LAST')"
    text = await kernel.text("python", code=code)
    assert text.startswith("FIRST\n") and text.endswith("LAST")
    assert "cut from the middle" in text
    assert len(text.encode()) <= 50_000 + 500


async def test_one_huge_line_is_capped(kernel_with):
    kernel = kernel_with(caps=OutputCaps(max_bytes=5000), data_policy="full")
    text = await kernel.text("python", code="print('y' * 10_000_000)")
    assert len(text) < 10_000 and "more characters" in text


async def test_top_level_await_is_refused_with_advice(kernel):
    text = await kernel.error("python", code="import asyncio\nawait asyncio.sleep(0)")
    assert "Top-level await cannot run here" in text


async def test_magics_work(kernel):
    assert "Out: 3" in await kernel.text("python", code="%time z = 3\nz")


async def test_output_goes_to_the_live_hook_as_it_is_printed(shell):
    from contextlib import contextmanager

    from jupyter_agent.tools import kernel_tools

    seen, entered = [], []

    @contextmanager
    def live():
        entered.append(True)
        yield seen.append

    code = "print('first', flush=True)\nassert _live_seen == ['first', '\\n']\nprint('second')"
    shell.user_ns["_live_seen"] = seen
    (python, *_) = kernel_tools(shell, live=live, data_policy="full")
    result = await python.execute(python.parameters(code=code), AbortController().signal)
    assert result[0].text == "first\nsecond" and entered == [True]
    assert "".join(seen) == "first\nsecond\n"


async def test_a_watch_line_ends_the_result_and_its_details_ride_along(shell):
    from jupyter_agent.loop.execute_tool import execute_tool
    from jupyter_agent.messages import ToolCall
    from jupyter_agent.tools import kernel_tools

    watch = RecordingWatch()
    tools = {tool.name: tool for tool in kernel_tools(shell, watch=watch)}
    result = await execute_tool(ToolCall(id="c1", name="python", arguments={"code": "a = 1"}), tools, AbortController().signal)
    assert [block.text for block in result.content] == ["(no output)", "Namespace: + a (int)"]
    assert result.details["namespace"] == [{"token": 1}] and watch.seen == ["a = 1"]
    failed = await execute_tool(
        ToolCall(id="c2", name="python", arguments={"code": "a = 2; 1/0"}), tools, AbortController().signal
    )
    assert failed.is_error and failed.content[0].text.endswith("ZeroDivisionError: division by zero\nNamespace: + a (int)")
    watch.line = ""
    quiet = await execute_tool(ToolCall(id="c3", name="python", arguments={"code": "pass"}), tools, AbortController().signal)
    assert [block.text for block in quiet.content] == ["(no output)"] and "namespace" not in (quiet.details or {})


class SigintLimit:
    """A ``TimeLimit`` as the notebook's: SIGINT to this process once the code has run ``seconds``."""

    def __init__(self):
        self.limits = []

    def __call__(self, seconds):
        from contextlib import contextmanager
        from types import SimpleNamespace

        self.limits.append(seconds)

        @contextmanager
        def limited():
            state = SimpleNamespace(expired=False)

            def expire():
                state.expired = True
                os.kill(os.getpid(), signals.SIGINT)

            timer = threading.Timer(seconds, expire)
            timer.start()
            try:
                yield state
            finally:
                timer.cancel()

        return limited()


async def test_a_call_past_its_time_limit_is_an_error_result_and_the_namespace_is_kept(shell):
    from jupyter_agent.tools import kernel_tools

    from .conftest import Runner

    limit = SigintLimit()
    run = Runner(kernel_tools(shell, time_limit=limit, python_timeout=0.3, data_policy="full"))
    text = await run.error("python", code="import time\nbefore = 1\nprint('started')\ntime.sleep(30)")
    assert text.startswith("Timed out: the code was still running at its 0.3 s limit and was interrupted")
    assert "up to 0.3 s (AgentMagics.python_timeout)" in text and "started" in text
    assert shell.user_ns["before"] == 1 and limit.limits == [0.3]
    assert await run.text("python", code="1 + 1") == "Out: 2"  # the shell goes on


async def test_the_model_may_ask_for_less_time_but_not_for_more(shell):
    from jupyter_agent.tools import kernel_tools

    limit = SigintLimit()
    (python, *_) = kernel_tools(shell, time_limit=limit, python_timeout=60)
    schema = python.parameters.model_json_schema()
    assert "default and maximum 60" in schema["properties"]["timeout"]["description"]
    assert python.limit_for({"code": "x", "timeout": 5}) == 5 and python.limit_for({"code": "x", "timeout": 600}) == 60
    assert python.limit_for({"code": "x"}) == 60 and python.limit_for({"code": 1, "timeout": "soon"}) is None
    await python.execute(python.parameters(code="pass", timeout=600), AbortController().signal)
    assert limit.limits == [60]
    (unlimited, *_) = kernel_tools(shell)
    assert "timeout" not in unlimited.parameters.model_json_schema()["properties"] and unlimited.limit_for({"code": "x"}) is None
