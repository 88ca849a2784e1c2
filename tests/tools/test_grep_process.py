import threading
import time

import pytest

from jupyter_agent.tools import OutputCaps, Workspace
from jupyter_agent.tools.blocking import Stopped
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.grep import GrepArgs, search
from jupyter_agent.tools.grep_process import run_bounded


def test_the_result_and_a_tool_error_come_back_from_the_child(tmp_path):
    (tmp_path / "a.txt").write_text("needle\n")
    workspace = Workspace(tmp_path)
    assert run_bounded(search, (workspace, OutputCaps(), GrepArgs(pattern="needle")), threading.Event()) == "a.txt:1: needle"
    with pytest.raises(ToolError, match="^Path not found: nope.$"):
        run_bounded(search, (workspace, OutputCaps(), GrepArgs(pattern="x", path="nope")), threading.Event())


def test_a_child_past_its_time_limit_is_killed_with_advice():
    with pytest.raises(ToolError, match=r"^The search took over 0.5 s and was stopped\. Narrow the path"):
        run_bounded(time.sleep, (60,), threading.Event(), seconds=0.5)  # noqa: TID251 - the child's work: it hangs


def test_stop_ends_the_wait_at_once():
    stop = threading.Event()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    with pytest.raises(Stopped):
        run_bounded(time.sleep, (60,), stop)  # noqa: TID251 - the child's work: it hangs
    timer.join()
