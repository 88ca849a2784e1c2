import asyncio
import os
import time

import pytest

from jupyter_agent import AbortController, RunCancelled
from jupyter_agent.testing.waiting import wait_until
from jupyter_agent.tools import OutputCaps, ToolError
from jupyter_agent.tools.bash import BashArgs

pytestmark = pytest.mark.anyio


def alive(pid: int) -> bool:
    """Running (not a zombie) right now."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def processes_in(folder) -> list[int]:
    """Live processes whose working directory is ``folder`` (what a command started there)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd") == str(folder) and alive(int(entry)):
                found.append(int(entry))
        except OSError:
            continue
    return found


async def test_output_and_exit_code(run):
    assert await run.text("bash", command="echo out; echo err >&2") == "stdout:\nout\nstderr:\nerr\nexit code 0"


async def test_a_nul_character_in_the_command_is_refused_in_one_line_and_nothing_runs(run, workspace):
    text = await run.error("bash", command="touch ran.txt; echo a\0b")
    assert text == (
        "The command holds a NUL character at position 22; a command line cannot contain one (nothing was run). "
        "To produce a NUL byte, use printf '\\0'."
    )
    assert not (workspace / "ran.txt").exists()


async def test_non_zero_exit_is_a_normal_result(run):
    assert await run.text("bash", command="echo fail; exit 3") == "stdout:\nfail\nexit code 3"


async def test_runs_in_the_workspace(run, workspace):
    assert await run.text("bash", command="pwd") == f"stdout:\n{workspace.resolve()}\nexit code 0"


async def test_stdin_is_closed_so_readers_return_at_once(run):
    started = time.monotonic()
    text = await run.text("bash", command="cat; read line || echo eof")
    assert text == "stdout:\neof\nexit code 0"
    assert time.monotonic() - started < 5


async def test_no_output(run):
    assert await run.text("bash", command="true") == "(no output)\nexit code 0"


async def test_timeout_kills_the_whole_group(run, workspace):
    command = "sleep 1000 & echo $! > bg.pid; sh -c 'echo $$ > fg.pid; exec sleep 1000'"
    started = time.monotonic()
    text = await run.error("bash", command=command, timeout=0.5)
    assert text.startswith("Command timed out after 0.5 s and was killed")
    assert time.monotonic() - started < 5
    pids = [int((workspace / name).read_text()) for name in ("bg.pid", "fg.pid")]
    assert await wait_until(lambda: not any(alive(pid) for pid in pids), what=f"the processes {pids} to end", every=0.02)


async def test_literal_background_and_foreground_sleeps_leave_no_survivor(run, workspace):
    text = await run.error("bash", command="sleep 1000 & sleep 1000", timeout=0.3)
    assert "timed out" in text
    assert await wait_until(lambda: not processes_in(workspace.resolve()), what="no process left in the workspace", every=0.02)


async def test_abort_mid_run_kills_the_group(run, workspace):
    tool = run.tools["bash"]
    controller = AbortController()
    task = asyncio.ensure_future(
        tool.execute(BashArgs(command="echo started; sleep 1000 & echo $! > bg.pid; sleep 1000"), controller.signal)
    )
    assert await wait_until(
        lambda: (workspace / "bg.pid").exists() and (workspace / "bg.pid").read_text(), what="bg.pid", every=0.02
    )
    controller.abort()
    with pytest.raises(ToolError, match="Command aborted") as caught:
        await asyncio.wait_for(task, 5)
    assert "started" in str(caught.value)
    pid = int((workspace / "bg.pid").read_text())
    assert await wait_until(lambda: not alive(pid), what=f"process {pid} to end", every=0.02)


async def test_abort_through_the_loop_raises_the_reason_and_kills(run, workspace):
    controller = AbortController()
    call = asyncio.ensure_future(run("bash", abort=controller.signal, command="sleep 1000 & echo $! > bg.pid; wait"))
    assert await wait_until(
        lambda: (workspace / "bg.pid").exists() and (workspace / "bg.pid").read_text(), what="bg.pid", every=0.02
    )
    controller.abort()
    with pytest.raises(RunCancelled):
        await asyncio.wait_for(call, 5)
    pid = int((workspace / "bg.pid").read_text())
    assert await wait_until(lambda: not alive(pid), what=f"process {pid} to end", every=0.02)
    # The loop stopped waiting at once; the tool's cleanup (reaping the shell) finishes on its own.
    cleanup = [task for task in asyncio.all_tasks() if "bash_tool" in task.get_coro().__qualname__]
    if cleanup:
        _, pending = await asyncio.wait(cleanup, timeout=5)
        assert not pending


async def test_already_aborted_does_not_start(run, workspace):
    controller = AbortController()
    controller.abort()
    with pytest.raises(ToolError, match="Command aborted"):
        await run.tools["bash"].execute(BashArgs(command="touch ran"), controller.signal)
    assert not (workspace / "ran").exists()


async def test_huge_output_keeps_head_and_tail(run_with):
    run = run_with(caps=OutputCaps(max_lines=100, max_bytes=4000, capture_bytes=10_000))
    text = await run.text("bash", command="seq 1 1000000")
    lines = text.splitlines()
    assert lines[:3] == ["stdout:", "1", "2"]
    assert lines[-2:] == ["1000000", "exit code 0"]
    assert any("cut from the middle" in line for line in lines)
    assert len(text) < 5000


async def test_background_job_that_keeps_the_pipe_does_not_block(run, workspace):
    started = time.monotonic()
    text = await run.text("bash", command="sleep 3 & echo done")
    assert text.startswith("stdout:\ndone") and time.monotonic() - started < 2.5


async def test_timeout_argument_is_validated(run):
    assert "Validation failed" in await run.error("bash", command="true", timeout=0)
