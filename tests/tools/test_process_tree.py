"""No process a bash command started survives its abort or timeout: not its group, not setsid
children, not daemons that double-forked away, not a child forked during the SIGTERM."""

import asyncio
import os
import random
import signal
import subprocess
import sys
import uuid

import pytest

from jupyter_agent import AbortController
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until_blocking
from jupyter_agent.tools.process import run_command
from jupyter_agent.tools.process_tree import descendants

pytestmark = pytest.mark.anyio

# Each leaves processes behind in its own way; all of them sleep far longer than the test runs.
COMMANDS = [
    "sleep 600 & wait",
    "setsid sleep 600 & wait",
    "(setsid sh -c 'sleep 600 & sleep 600') & sleep 600",
    "sh -c 'sleep 600 &' ; sleep 600",  # a daemon: its parent exits at once
    "nohup sleep 600 >/dev/null 2>&1 & disown; sleep 600",
    "trap 'sleep 600 &' TERM; while :; do sleep 0.01; done",  # forks during the SIGTERM
    "for i in 1 2 3; do (setsid sleep 600 &); done; sleep 600",
]


def marked_processes(mark: str) -> list[int]:
    """Live processes whose environment carries ``mark`` (every descendant inherits it)."""
    found = []
    needle = mark.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle not in handle.read():
                    continue
            with open(f"/proc/{name}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
        except OSError:
            continue
        found.append(int(name))
    return found


@pytest.fixture
def cpu_load():
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for burner in burners:
        burner.kill()
        burner.wait()


@pytest.fixture
def mark(monkeypatch):
    value = f"survivor-{uuid.uuid4().hex}"
    monkeypatch.setenv("JUPYTER_AGENT_TEST_MARK", value)
    yield value
    for pid in marked_processes(value):  # never leave survivors to the rest of the suite
        os.kill(pid, 9)


async def abort_one(rng: random.Random, workspace) -> None:
    controller = AbortController()
    task = asyncio.ensure_future(
        run_command(rng.choice(COMMANDS), cwd=str(workspace), timeout=30, signal=controller.signal, capture_bytes=1000)
    )
    # The attack: an abort at a random moment (the commands run far longer than that).
    await assert_quiet_for(rng.uniform(0, 0.15), task.done, "the command ending by itself")
    if rng.random() < 0.5:
        controller.abort()  # the tool's own listener
        result = await asyncio.wait_for(task, 30)
        assert result.aborted or result.exit_code is not None
    else:
        task.cancel()  # the loop stops waiting at once (even while the shell is being started)
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_200_random_aborts_under_cpu_load_leave_no_survivor(workspace, cpu_load, mark):
    rng = random.Random(12)
    for _ in range(50):
        await asyncio.gather(*(abort_one(rng, workspace) for _ in range(4)))
    assert marked_processes(mark) == []


async def test_a_timeout_kills_setsid_and_daemonized_children(workspace, mark):
    command = "(setsid sleep 600 &); sh -c 'sleep 600 &'; nohup setsid sleep 600 >/dev/null 2>&1 & sleep 600"
    result = await run_command(command, cwd=str(workspace), timeout=0.5, signal=AbortController().signal, capture_bytes=1000)
    assert result.timed_out
    assert marked_processes(mark) == []


async def test_a_command_that_ends_normally_keeps_its_background_jobs(workspace, mark):
    result = await run_command(
        "setsid sleep 600 >/dev/null 2>&1 &", cwd=str(workspace), timeout=30, signal=AbortController().signal, capture_bytes=1000
    )
    assert result.exit_code == 0
    assert len(marked_processes(mark)) == 1  # a server started on purpose keeps running


@pytest.mark.parametrize("detach", ["nohup", "setsid"])
async def test_a_job_still_on_its_way_to_detach_when_its_shell_exits_survives_the_hangup(workspace, mark, detach):
    # The background subshell is a fork of the shell that execs the detacher only after its shell
    # has exited: what a loaded machine does to `nohup job &` between the fork and nohup's signal().
    result = await run_command(
        f"(sleep 0.3; exec {detach} sleep 600 >/dev/null 2>&1) &",
        cwd=str(workspace),
        timeout=30,
        signal=AbortController().signal,
        capture_bytes=1000,
    )
    assert result.exit_code == 0
    wait_until_blocking(lambda: len(marked_processes(mark)) == 1, 10, "the detached job alone", every=0.02)


def test_descendants_follow_the_tree():
    parent = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    try:
        wait_until_blocking(lambda: len(descendants(parent.pid)) >= 2, 10, "the two children", every=0.01)
        assert len(descendants(parent.pid)) == 2
    finally:
        for pid in descendants(parent.pid):
            os.kill(pid, 9)
        parent.kill()
        parent.wait()


# The main thread exits and another thread runs on: the process shows as a zombie, and its child
# stays its own (not a subreaper's) until that last thread exits, as a dying threaded server's do.
ZOMBIE_LEADER = """
import ctypes, subprocess, sys, threading, time
child = subprocess.Popen(["sleep", "30"])
print(child.pid, flush=True)
threading.Thread(target=time.sleep, args=(30,)).start()
ctypes.CDLL(None).pthread_exit(None)
"""


def test_descendants_go_through_a_zombie_whose_threads_still_run():
    wrapper = subprocess.Popen([sys.executable, "-c", ZOMBIE_LEADER], stdout=subprocess.PIPE)
    assert wrapper.stdout is not None
    child = int(wrapper.stdout.readline())
    try:

        def leader_is_a_zombie() -> bool:
            with open(f"/proc/{wrapper.pid}/stat", "rb") as handle:
                return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"

        wait_until_blocking(leader_is_a_zombie, 10, "the main thread to exit", every=0.01)
        assert descendants(os.getpid()) >= {child}
        assert wrapper.pid not in descendants(os.getpid())
    finally:
        os.kill(child, 9)
        wrapper.kill()
        wrapper.wait()


@pytest.mark.parametrize(
    "command",
    [
        "sleep 600 &",
        "sleep 600 > /dev/null 2>&1 &",
        "( sleep 600 & ) ; echo started",
        "( ( sleep 600 & ) & ) ; echo started",
        "sleep 600 & disown",
    ],
)
async def test_background_jobs_end_with_a_command_that_exits(workspace, mark, command):
    result = await run_command(command, cwd=str(workspace), timeout=30, signal=AbortController().signal, capture_bytes=1000)
    assert result.exit_code == 0 and not result.timed_out
    assert marked_processes(mark) == []


async def test_nohup_keeps_a_job_running_after_its_command(workspace, mark):
    result = await run_command(
        "nohup sleep 600 >/dev/null 2>&1 &", cwd=str(workspace), timeout=30, signal=AbortController().signal, capture_bytes=1000
    )
    assert result.exit_code == 0
    assert len(marked_processes(mark)) == 1  # the user's explicit choice, as in a terminal that closes


KERNEL_STAND_IN = """
import asyncio, os, sys, time
from jupyter_agent import AbortController
from jupyter_agent.tools import process
from jupyter_agent.tools.process import run_command
if sys.argv[2] == "unwatched":
    process.watch = lambda shell: None  # killed while the loop still awaited the spawn: never watched

loop = asyncio.new_event_loop()
task = loop.create_task(run_command("sleep 600 & sleep 600", cwd=".", timeout=1000, signal=AbortController().signal, capture_bytes=100))
loop.run_until_complete(asyncio.sleep(0.5))  # the command runs; then the kernel ends without cancelling it
print("running", flush=True)
if sys.argv[1] == "exit":
    sys.exit(0)  # a shutdown: the interpreter exits, its atexit hooks run
time.sleep(600)  # killed with SIGKILL by the test
"""


@pytest.mark.parametrize(("how", "watched"), [("exit", "watched"), ("SIGKILL", "watched"), ("SIGKILL", "unwatched")])
def test_a_running_command_ends_when_its_kernel_ends(workspace, mark, how, watched):
    stand_in = subprocess.Popen(
        [sys.executable, "-c", KERNEL_STAND_IN, how, watched],
        cwd=str(workspace),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert stand_in.stdout.readline().strip() == "running"
        # The stand-in, the shell, two sleeps.
        wait_until_blocking(lambda: len(marked_processes(mark)) >= 3, 20, "the command's processes", every=0.02)
        if how == "SIGKILL":
            stand_in.kill()
        stand_in.wait(30)
    finally:
        stand_in.kill()
        stand_in.stdout.close()
    wait_until_blocking(lambda: not marked_processes(mark), 20, "the command's processes to end", every=0.05)
    assert marked_processes(mark) == []


async def test_jobs_end_with_their_command_in_a_kernel_started_under_nohup(workspace, mark):
    # ``nohup jupyter lab &``: the kernel ignores SIGHUP, which its children would inherit.
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        result = await run_command(
            "sleep 600 & nohup sleep 600 >/dev/null 2>&1 &",
            cwd=str(workspace),
            timeout=30,
            signal=AbortController().signal,
            capture_bytes=1000,
        )
    finally:
        signal.signal(signal.SIGHUP, previous)
    try:
        assert result.exit_code == 0
        # The plain job ended with its command; the one that asked for nohup lives on.
        wait_until_blocking(lambda: len(marked_processes(mark)) == 1, 10, "the nohup job alone", every=0.02)
    finally:
        for pid in marked_processes(mark):
            os.kill(pid, 9)
