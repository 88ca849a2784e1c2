"""The completion thread: calls run on its own loop, from any thread; close winds it down."""

import asyncio
import threading

import pytest

from jupyter_agent.features.completion.thread import CompletionThread
from jupyter_agent.testing.waiting import wait_until_blocking


def test_calls_run_on_the_threads_own_loop_in_order():
    thread = CompletionThread()
    seen = []
    done = threading.Event()
    try:
        for index in range(3):
            thread.call(lambda index=index: seen.append((index, threading.get_ident(), asyncio.get_running_loop())))
        thread.call(done.set)
        assert done.wait(5)
        assert [index for index, _, _ in seen] == [0, 1, 2]
        assert {ident for _, ident, _ in seen} == {thread.ident} and thread.ident != threading.get_ident()
        assert len({id(loop) for _, _, loop in seen}) == 1
    finally:
        thread.close()


def test_close_cancels_its_tasks_runs_the_cleanup_there_and_stops():
    thread = CompletionThread()
    cancelled, cleaned = threading.Event(), []

    async def forever():
        try:
            await asyncio.Event().wait()  # nothing sets it: only a cancel ends the wait
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def cleanup():
        cleaned.append(threading.get_ident())

    thread.call(lambda: asyncio.get_running_loop().create_task(forever()))
    wait_until_blocking(lambda: thread.running, what="the thread to start")
    ident = thread.ident
    thread.close(cleanup)
    assert cancelled.is_set() and cleaned == [ident] and not thread.running
    with pytest.raises(RuntimeError, match="^the completion thread is closed$"):
        thread.call(print)


def test_closing_a_thread_that_never_started_does_nothing():
    thread = CompletionThread()
    thread.close()
    assert not thread.running and thread.ident is None
