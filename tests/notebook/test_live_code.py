import threading

from jupyter_agent.notebook.live_code import LiveCode
from jupyter_agent.testing.waiting import wait_until_blocking


class Recorder:
    def __init__(self):
        self.pushed, self.ticks, self.threads = [], 0, set()
        self.seen = threading.Event()

    def live_output(self, text):
        self.threads.add(threading.current_thread().name)
        self.pushed.append(text)
        self.seen.set()

    def tick(self):
        self.ticks += 1


def test_text_printed_while_the_caller_blocks_is_pushed_from_a_helper_thread():
    renderer = Recorder()
    with LiveCode(lambda: renderer)() as on_text:
        on_text("tick 1\n")
        on_text("tick 2\n")
        # The caller blocks (as agent-run code blocks the loop); the text still arrives.
        assert renderer.seen.wait(5)
        wait_until_blocking(lambda: renderer.ticks, 5, "a silent stretch to tick the clock")
    assert "".join(renderer.pushed) == "tick 1\ntick 2\n"
    assert renderer.threads == {"jupyter-agent-live-code"} and renderer.ticks >= 1
    assert not any(thread.name == "jupyter-agent-live-code" for thread in threading.enumerate())


def test_renderers_without_a_live_view_get_nothing():
    with LiveCode(lambda: object())() as on_text:
        assert on_text is None
    with LiveCode(lambda: None)() as on_text:
        assert on_text is None
