import asyncio
import os
import signal
import threading
import time
from types import SimpleNamespace

import pytest

from jupyter_agent.loop import RunCancelled
from jupyter_agent.notebook.interrupt import AgentInterrupted, InterruptRouter
from jupyter_agent.testing.waiting import assert_quiet_for, assert_quiet_for_blocking, wait_until, wait_until_blocking

pytestmark = pytest.mark.anyio


def sigint_soon(delay=0.05):
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_agent_interrupted_is_a_run_cancellation_not_a_keyboard_interrupt():
    assert issubclass(AgentInterrupted, RunCancelled)
    assert not issubclass(AgentInterrupted, KeyboardInterrupt)


async def test_handler_is_installed_only_while_a_run_is_active():
    before = signal.getsignal(signal.SIGINT)
    router = InterruptRouter()
    with router.guard(object(), lambda: None):
        assert signal.getsignal(signal.SIGINT) == router._on_sigint
        with router.guard(object(), lambda: None):
            pass
        assert signal.getsignal(signal.SIGINT) == router._on_sigint  # still one run active
    assert signal.getsignal(signal.SIGINT) == before


async def test_idle_kernel_gets_the_handler_in_saved_sigint_handler_and_back():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what ipykernel sets while idle
    try:
        kernel = SimpleNamespace(saved_sigint_handler=signal.SIG_IGN)
        router = InterruptRouter(kernel)
        with router.guard(object(), lambda: None):
            assert kernel.saved_sigint_handler == router._on_sigint
            assert signal.getsignal(signal.SIGINT) == router._on_sigint
        assert kernel.saved_sigint_handler is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


async def test_a_cell_executing_keeps_its_own_handler():
    # During a shell message ipykernel has default_int_handler installed and the idle one saved.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        kernel = SimpleNamespace(saved_sigint_handler=signal.SIG_IGN)
        router = InterruptRouter(kernel)
        with router.guard(object(), lambda: None):
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            assert kernel.saved_sigint_handler == router._on_sigint  # post_handler_hook installs it
        assert kernel.saved_sigint_handler is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


async def test_sigint_while_parked_stops_the_run_without_raising():
    router = InterruptRouter()
    token = object()
    stopped = asyncio.Event()

    async def run():
        with router.guard(token, stopped.set):
            sigint_soon()
            await asyncio.wait_for(stopped.wait(), 5)
        return "stopped cleanly"

    task = asyncio.get_running_loop().create_task(run(), context=router.bind(token))
    assert await task == "stopped cleanly"


async def test_sigint_in_blocking_run_code_raises_agent_interrupted_there():
    router = InterruptRouter()
    token = object()
    stops = []

    async def run():
        with router.guard(token, lambda: stops.append(1)):
            sigint_soon()
            deadline = time.monotonic() + 5
            try:
                while time.monotonic() < deadline:  # user code busy on the main thread
                    pass
            except AgentInterrupted as interrupted:
                return str(interrupted)
            return "never interrupted"

    task = asyncio.get_running_loop().create_task(run(), context=router.bind(token))
    assert await task == "Interrupted by the user"
    await wait_until(lambda: stops, what="the other run's stop")
    assert stops == [1]


async def test_sigint_in_the_run_s_own_task_while_no_code_runs_stops_it_without_raising():
    # The run's task busy in its own machinery (rendering a delta, a footer tick): an exception
    # raised there would end the run as an error, not as stopped.
    router = InterruptRouter()
    token = object()
    stops = []

    async def run():
        with router.guard(token, lambda: stops.append(1), code_running=lambda: False):
            sigint_soon()
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:
                pass
            await wait_until(lambda: stops, what="the stop")
            return "finished its step"

    task = asyncio.get_running_loop().create_task(run(), context=router.bind(token))
    assert await task == "finished its step"
    assert stops == [1]


async def test_blocking_code_of_another_task_is_not_interrupted():
    router = InterruptRouter()
    stops = []

    async def other():
        with router.guard(object(), lambda: stops.append(1)):
            sigint_soon()
            deadline = time.monotonic() + 0.3
            while time.monotonic() < deadline:
                pass
            return "finished"

    # Started without router.bind: not the run's own code.
    assert await asyncio.get_running_loop().create_task(other()) == "finished"
    await wait_until(lambda: stops, what="the stop")
    assert stops == [1]


async def test_in_its_own_code_the_run_is_told_rather_than_stopped_at_once():
    router = InterruptRouter()
    token, other = object(), object()
    calls = []

    async def run():
        with router.guard(token, lambda: calls.append("stop"), in_code=lambda: calls.append("in_code")):
            with router.guard(other, lambda: calls.append("other stopped")):
                sigint_soon()
                deadline = time.monotonic() + 5
                try:
                    while time.monotonic() < deadline:
                        pass
                except AgentInterrupted:
                    await wait_until(lambda: "other stopped" in calls, what="the other run's stop")
                    return calls

    task = asyncio.get_running_loop().create_task(run(), context=router.bind(token))
    assert await task == ["in_code", "other stopped"]


def test_interrupt_code_refuses_what_it_cannot_aim_at_one_run():
    from jupyter_agent.notebook.interrupt import InterruptRouter

    router = InterruptRouter()
    assert router.interrupt_code(object()) is False  # no such run is guarded


async def test_a_time_limit_interrupts_the_runs_code_at_its_limit_and_the_run_goes_on():
    router = InterruptRouter()
    token = object()
    calls = []

    async def run():
        with router.guard(token, lambda: calls.append("stop"), in_code=lambda: calls.append("in_code")):
            with router.time_limit(0.2) as limit:
                deadline = time.monotonic() + 10
                try:
                    while time.monotonic() < deadline:  # a hung call
                        pass
                except AgentInterrupted as interrupted:
                    return str(interrupted), limit.expired
            return "never interrupted", limit.expired

    task = asyncio.get_running_loop().create_task(run(), context=router.bind(token))
    assert await task == ("Interrupted at its time limit", True)
    # Neither stopped nor told to stop: a timeout is the call's error, not the run's end.
    await assert_quiet_for(0.1, lambda: calls, "the run stopped or told to stop")
    assert calls == []


async def test_code_that_swallows_the_interrupt_is_interrupted_again(monkeypatch):
    from jupyter_agent.notebook import interrupt

    monkeypatch.setattr(interrupt, "RETRY_SECONDS", 0.1)
    router = InterruptRouter()
    token = object()

    async def run():
        caught = 0
        with router.guard(token, lambda: None):
            with router.time_limit(0.1):
                deadline = time.monotonic() + 10
                try:
                    while time.monotonic() < deadline:
                        try:
                            while time.monotonic() < deadline:
                                pass
                        except Exception:  # noqa: BLE001 - user code that catches everything
                            caught += 1
                            if caught > 1:
                                raise
                except AgentInterrupted:
                    return caught
        return caught

    task = asyncio.get_running_loop().create_task(run(), context=router.bind(token))
    assert await task == 2


async def test_code_done_before_its_limit_is_not_interrupted():
    router = InterruptRouter()
    token = object()
    with router.guard(token, lambda: None):
        with router.time_limit(0.1) as limit:
            pass
        # Past the limit: the timer stopped with the block.
        assert_quiet_for_blocking(0.3, lambda: limit.expired, "the limit expiring after its block")
    assert not limit.expired


def test_a_cells_time_limit_interrupts_it_as_the_kernels_interrupt_does():
    """While the cell executes ipykernel's handler is in place: the SIGINT is a KeyboardInterrupt in the cell."""
    router = InterruptRouter()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # what ipykernel installs for a cell
    try:
        with router.cell_time_limit(0.1, lambda: True) as limit:
            deadline = time.monotonic() + 10
            with pytest.raises(KeyboardInterrupt):
                while time.monotonic() < deadline:  # the cell, still running at its limit
                    pass
        assert limit.expired
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_cells_time_limit_never_interrupts_while_another_cell_or_nothing_runs(monkeypatch):
    from jupyter_agent.notebook import interrupt

    monkeypatch.setattr(interrupt, "RETRY_SECONDS", 0.05)
    router = InterruptRouter()
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        with router.cell_time_limit(0.05, lambda: False) as limit:  # the cell has not started (or ended)
            wait_until_blocking(lambda: limit.expired, what="the limit to pass")
            assert_quiet_for_blocking(0.3, lambda: received, "a SIGINT with no cell of its own running")
        with router.cell_time_limit(0.05, lambda: True) as done_in_time:
            pass
        assert_quiet_for_blocking(0.2, lambda: done_in_time.expired or received, "a limit whose block ended firing")
    finally:
        signal.signal(signal.SIGINT, previous)
