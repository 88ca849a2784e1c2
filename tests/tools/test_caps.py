import tracemalloc

from jupyter_agent.tools.caps import (
    HeadTailBuffer,
    OutputCaps,
    clip_line,
    human_size,
    truncate_head,
    truncate_head_tail,
)

SMALL = OutputCaps(max_lines=10, max_bytes=1000, max_line_chars=50)


def test_short_text_is_untouched():
    text = "a\nb\nc"
    assert truncate_head(text, SMALL) == text
    assert truncate_head_tail(text, SMALL) == text


def test_head_keeps_the_start_and_says_how_to_get_the_rest():
    text = "\n".join(f"line {i}" for i in range(100))
    out = truncate_head(text, SMALL, "Use offset.")
    assert out.splitlines()[:10] == [f"line {i}" for i in range(10)]
    assert out.splitlines()[-1] == "[Output truncated: showing 10 of 100 lines. Use offset.]"


def test_head_respects_the_byte_cap():
    text = "\n".join("x" * 40 for _ in range(9))
    out = truncate_head(text, OutputCaps(max_lines=100, max_bytes=100, max_line_chars=50))
    assert out.count("x" * 40) == 2 and "showing 2 of 9 lines" in out


def test_head_tail_keeps_both_ends_and_counts_the_cut():
    text = "\n".join(f"line {i}" for i in range(100))
    out = truncate_head_tail(text, SMALL).splitlines()
    assert out[0] == "line 0" and out[-1] == "line 99"
    assert "[… 90 lines" in out[5] and "cut from the middle" in out[5]
    assert len(out) == 11


def test_long_lines_are_clipped_with_a_count():
    assert clip_line("x" * 60, 50) == "x" * 50 + "… [10 more characters]"
    assert len(truncate_head("y" * 5000, SMALL)) < 100


def test_head_tail_buffer_keeps_ends_and_counts_everything():
    buffer = HeadTailBuffer("", 5)
    for chunk in ["abc", "def", "ghi", "jkl"]:
        buffer.write(chunk)
    assert buffer.value() == "abcde" + "hijkl"
    assert buffer.total == 12 and buffer.omitted == 2


def test_head_tail_buffer_memory_stays_bounded_for_10_mb():
    buffer = HeadTailBuffer(b"", 1000)
    tracemalloc.start()
    for _ in range(100_000):
        buffer.write(b"x" * 100)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert buffer.total == 10_000_000 and len(buffer.value()) == 2000
    assert peak < 100_000


def test_omitted_text_is_reported_in_the_note():
    buffer = HeadTailBuffer("", 200)
    buffer.write("\n".join(str(i) for i in range(10_000)))
    out = truncate_head_tail(buffer.value(), OutputCaps(max_lines=20, max_bytes=300), omitted_before=buffer.omitted)
    assert out.startswith("0\n1\n") and out.endswith("9998\n9999")
    assert "cut from the middle" in out


def test_human_size():
    assert human_size(12) == "12 B"
    assert human_size(2048) == "2.0 KB"
    assert human_size(5 * 1024 * 1024) == "5.0 MB"
