import sys

import pytest

from jupyter_agent.tools import DEFAULT_CAPS
from jupyter_agent.tools.capture import CapturedStream, OutputSink, captured_output, strip_ansi


def test_everything_is_restored_after_an_exception(shell):
    before = (sys.stdout, sys.stderr, sys.displayhook, shell.display_pub, shell.displayhook, shell.display_trap.hook)
    own_traceback = vars(shell).get("_showtraceback")  # IPython's test shell sets one of its own
    sink = OutputSink(DEFAULT_CAPS)
    with pytest.raises(KeyboardInterrupt):
        with captured_output(shell, sink):
            print("captured")
            raise KeyboardInterrupt
    after = (sys.stdout, sys.stderr, sys.displayhook, shell.display_pub, shell.displayhook, shell.display_trap.hook)
    assert after == before and vars(shell).get("_showtraceback") is own_traceback
    assert sink.render() == "captured"


def test_stand_ins_forward_unknown_attributes(shell):
    sink = OutputSink(DEFAULT_CAPS)
    original = shell.display_pub
    with captured_output(shell, sink):
        assert shell.display_pub.shell is original.shell
        assert shell.displayhook.shell is shell
        shell.display_pub.clear_output(wait=True)


def test_stream_takes_text_only():
    stream = CapturedStream(OutputSink(DEFAULT_CAPS), "<stdout>")
    assert stream.write("abc") == 3 and not stream.isatty() and stream.encoding == "utf-8"
    with pytest.raises(TypeError):
        stream.write(b"bytes")


def test_images_over_the_count_or_size_are_noted():
    caps = DEFAULT_CAPS.__class__(max_images=1, max_image_bytes=10)
    sink = OutputSink(caps)
    sink.add_png(b"12345")
    sink.add_png(b"again")
    sink.add_png("QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB")
    assert len(sink.images) == 1
    assert "More images" in sink.render()


def test_ansi_codes_are_stripped():
    assert strip_ansi("\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "red link"
