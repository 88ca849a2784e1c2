import asyncio
import threading

from jupyter_agent.notebook.threads import call_on_loop, on_loop_thread


def test_on_the_loop_the_call_is_made_at_once():
    async def scenario():
        calls = []
        call_on_loop(asyncio.get_running_loop(), calls.append, "now")
        assert calls == ["now"] and on_loop_thread(asyncio.get_running_loop())

    asyncio.run(scenario())


def test_from_another_thread_the_call_is_handed_to_the_loop():
    async def scenario():
        loop = asyncio.get_running_loop()
        made_on = []
        made = asyncio.Event()

        def record(label):
            made_on.append((label, threading.get_ident(), on_loop_thread(loop)))
            made.set()

        worker = threading.Thread(target=call_on_loop, args=(loop, record, "click"))
        worker.start()
        worker.join(5)  # blocks the loop: the call can only have been queued
        assert made_on == []
        await asyncio.wait_for(made.wait(), 5)
        assert made_on == [("click", threading.get_ident(), True)]

    asyncio.run(scenario())


def test_without_a_running_loop_the_call_is_made_where_we_are():
    calls = []
    call_on_loop(None, calls.append, 1)
    loop = asyncio.new_event_loop()
    call_on_loop(loop, calls.append, 2)  # not running: nobody else touches the state
    loop.close()
    call_on_loop(loop, calls.append, 3)
    assert calls == [1, 2, 3] and not on_loop_thread(None)
