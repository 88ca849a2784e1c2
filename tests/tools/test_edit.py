import pytest

pytestmark = pytest.mark.anyio


async def test_edit_requires_a_read_first(run, workspace):
    (workspace / "a.py").write_text("x = 1\n")
    text = await run.error("edit", path="a.py", old_text="x = 1", new_text="x = 2")
    assert "has not been read" in text and "read tool" in text
    assert (workspace / "a.py").read_text() == "x = 1\n"


async def test_unique_match_is_replaced_and_a_diff_returned(run, workspace, snapshots):
    (workspace / "a.py").write_text("def f():\n    return 1\n")
    await run.text("read", path="a.py")
    text = await run.text("edit", path="a.py", old_text="return 1", new_text="return 2")
    assert (workspace / "a.py").read_text() == "def f():\n    return 2\n"
    assert text.startswith("Replaced 1 occurrence in a.py.\n--- a/a.py\n+++ b/a.py\n")
    assert "-    return 1\n+    return 2" in text
    assert snapshots.paths == [workspace.resolve() / "a.py"]


async def test_zero_matches_is_refused(run, workspace):
    (workspace / "a.py").write_text("abc\n")
    await run.text("read", path="a.py")
    assert "old_text was not found in a.py" in await run.error("edit", path="a.py", old_text="xyz", new_text="q")


async def test_three_matches_need_replace_all(run, workspace, snapshots):
    (workspace / "a.py").write_text("a\na\na\n")
    await run.text("read", path="a.py")
    text = await run.error("edit", path="a.py", old_text="a", new_text="b")
    assert "appears 3 times in a.py" in text and "replace_all" in text
    assert snapshots.paths == []
    assert (await run.text("edit", path="a.py", old_text="a", new_text="b", replace_all=True)).startswith(
        "Replaced 3 occurrences in a.py."
    )
    assert (workspace / "a.py").read_text() == "b\nb\nb\n"


async def test_file_changed_since_read_is_refused(run, workspace):
    (workspace / "a.py").write_text("v1\n")
    await run.text("read", path="a.py")
    (workspace / "a.py").write_text("v2\n")
    assert "changed on disk since it was last read" in await run.error("edit", path="a.py", old_text="v2", new_text="v3")
    await run.text("read", path="a.py")
    await run.text("edit", path="a.py", old_text="v2", new_text="v3")


async def test_consecutive_edits_need_no_new_read(run, workspace):
    (workspace / "a.py").write_text("one\ntwo\n")
    await run.text("read", path="a.py")
    await run.text("edit", path="a.py", old_text="one", new_text="1")
    await run.text("edit", path="a.py", old_text="two", new_text="2")
    assert (workspace / "a.py").read_text() == "1\n2\n"


async def test_crlf_file_keeps_its_line_endings(run, workspace):
    (workspace / "w.txt").write_bytes(b"first\r\nsecond\r\n")
    await run.text("read", path="w.txt")
    await run.text("edit", path="w.txt", old_text="first\nsecond", new_text="one\ntwo")
    assert (workspace / "w.txt").read_bytes() == b"one\r\ntwo\r\n"


async def test_refusals(run, workspace):
    (workspace / "bin").write_bytes(b"\x00abc")
    await run.text("write", path="t.txt", content="same")
    assert "File not found: missing.py" in await run.error("edit", path="missing.py", old_text="a", new_text="b")
    assert "identical" in await run.error("edit", path="t.txt", old_text="same", new_text="same")
    assert "old_text is empty" in await run.error("edit", path="t.txt", old_text="", new_text="b")
    assert "outside the workspace" in await run.error("edit", path="../x", old_text="a", new_text="b")
    (workspace / "latin.txt").write_bytes(b"caf\xe9\n")
    await run.text("read", path="latin.txt")
    assert "not valid UTF-8" in await run.error("edit", path="latin.txt", old_text="caf", new_text="x")


async def test_shared_tracker_counts_reads_from_another_tool_list(workspace, tracker, run_with):
    (workspace / "a.py").write_text("x\n")
    reader = run_with(read_tracker=tracker)
    editor = run_with(read_tracker=tracker)
    await reader.text("read", path="a.py")
    await editor.text("edit", path="a.py", old_text="x", new_text="y")


async def test_a_lone_surrogate_in_new_text_is_refused_and_the_file_is_unchanged(run, workspace):
    (workspace / "a.py").write_text("x = 1\n")
    await run.text("read", path="a.py")
    text = await run.error("edit", path="a.py", old_text="1", new_text="'\ud83d'")  # half of an emoji's pair
    assert text.startswith("Cannot edit a.py: new_text holds a lone surrogate (U+D83D at character 2)")
    assert (workspace / "a.py").read_text() == "x = 1\n"
