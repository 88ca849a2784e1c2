import base64
import os

import pytest

pytestmark = pytest.mark.anyio

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


async def test_lines_are_numbered(run, workspace):
    (workspace / "a.py").write_text("one\ntwo\nthree\n")
    assert await run.text("read", path="a.py") == "1|one\n2|two\n3|three"


async def test_offset_and_limit_page_through_with_a_continuation_note(run, workspace):
    (workspace / "a.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    text = await run.text("read", path="a.txt", offset=4, limit=2)
    assert text == "4|l4\n5|l5\n[Showing lines 4-5 of 10. Use offset=6 to read on.]"
    assert await run.text("read", path="a.txt", offset="9") == "9|l9\n10|l10"


async def test_huge_file_is_capped_with_a_note(run, workspace):
    (workspace / "big.log").write_text("".join(f"entry {i} " + "x" * 80 + "\n" for i in range(100_000)))
    text = await run.text("read", path="big.log")
    assert len(text.encode()) <= 50_000 + 200
    assert "1|entry 0 " in text
    last = text.splitlines()[-1]
    assert last.startswith("[Showing lines 1-") and "of 100000 (output size limit reached)" in last
    assert "Use offset=" in last


async def test_last_line_without_newline_and_crlf(run, workspace):
    (workspace / "w.txt").write_bytes(b"a\r\nb\r\nc")
    assert await run.text("read", path="w.txt") == "1|a\n2|b\n3|c"


async def test_image_comes_back_as_image_content(run, workspace):
    (workspace / "dot.png").write_bytes(PNG)
    result = await run("read", path="dot.png")
    assert not result.is_error
    text, image = result.content
    assert "dot.png" in text.text and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG


async def test_binary_file_is_refused(run, workspace):
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    assert "binary file" in await run.error("read", path="blob.bin")


async def test_missing_folder_and_escape_are_error_results(run, workspace, tmp_path):
    (workspace / "d").mkdir()
    assert "File not found: nope.txt" in await run.error("read", path="nope.txt")
    assert "is a folder" in await run.error("read", path="d")
    assert "outside the workspace" in await run.error("read", path="../x")
    (tmp_path / "secret").write_text("secret")
    os.symlink(tmp_path / "secret", workspace / "s")
    error = await run.error("read", path="s")
    assert "symbolic link" in error and "secret\n" not in error


async def test_offset_past_the_end(run, workspace):
    (workspace / "a.txt").write_text("x\n")
    assert "past the end" in await run.error("read", path="a.txt", offset=5)


async def test_empty_file(run, workspace):
    (workspace / "e.txt").write_text("")
    assert await run.text("read", path="e.txt") == "e.txt is empty."


async def test_invalid_offset_is_a_validation_error(run, workspace):
    (workspace / "a.txt").write_text("x\n")
    assert "Validation failed" in await run.error("read", path="a.txt", offset=0)


async def test_a_one_line_file_is_read_in_bounded_memory_with_its_length(run, workspace):
    import tracemalloc

    (workspace / "one.json").write_bytes(b"[" + b"1," * 15_000_000 + b"1]")  # 30 MB, one line
    tracemalloc.start()
    try:
        text = await run.text("read", path="one.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text == "1|[" + "1," * 999 + "1… [29998003 more bytes]"
    assert peak < 8_000_000  # a few 1 MB blocks, not the line (joining it cost twice its size)


async def test_past_the_size_cap_only_the_window_is_read_and_edit_is_told(workspace, run_with):
    from jupyter_agent.tools import OutputCaps

    (workspace / "huge.log").write_text("".join(f"line {i}\n" for i in range(1000)))
    run = run_with(caps=OutputCaps(read_max_file_bytes=2000))
    text = await run.text("read", path="huge.log", limit=2)
    assert text.startswith("1|line 0\n2|line 1\n[Showing lines 1-2. huge.log is 8.7 KB, over the 2.0 KB read takes whole")
    assert "Use offset=3" in text
    assert "not in them" in await run.error("read", path="huge.log", offset=900)
    assert "has not been read" in await run.error("edit", path="huge.log", old_text="line 1\n", new_text="x\n")


async def test_a_one_line_file_past_the_size_cap_shows_its_start(workspace, run_with):
    from jupyter_agent.tools import OutputCaps

    (workspace / "one.txt").write_bytes(b"y" * 3_000_000)
    run = run_with(caps=OutputCaps(read_max_file_bytes=1_500_000, max_line_chars=10))
    text = await run.text("read", path="one.txt")
    assert text.startswith("1|yyyyyyyyyy… [the line goes on past what was read]\n[Showing lines 1-1. one.txt is 2.9 MB")
