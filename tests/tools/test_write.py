import pytest

pytestmark = pytest.mark.anyio


async def test_new_file_needs_no_read_and_parents_are_created(run, workspace, snapshots):
    text = await run.text("write", path="new/deep/f.txt", content="hello")
    assert text == "Wrote 5 bytes to new/deep/f.txt (new file)."
    assert (workspace / "new/deep/f.txt").read_text() == "hello"
    assert snapshots.paths == [workspace.resolve() / "new/deep/f.txt"]


async def test_overwrite_without_read_is_refused(run, workspace, snapshots):
    (workspace / "f.txt").write_text("old")
    text = await run.error("write", path="f.txt", content="new")
    assert "has not been read" in text and "retry the write" in text
    assert (workspace / "f.txt").read_text() == "old" and snapshots.paths == []


async def test_overwrite_after_read(run, workspace):
    (workspace / "f.txt").write_text("old")
    await run.text("read", path="f.txt")
    assert "replaced the previous content" in await run.text("write", path="f.txt", content="new")
    assert (workspace / "f.txt").read_text() == "new"


async def test_overwrite_after_a_change_on_disk_is_refused(run, workspace):
    (workspace / "f.txt").write_text("old")
    await run.text("read", path="f.txt")
    (workspace / "f.txt").write_text("changed")
    assert "changed on disk" in await run.error("write", path="f.txt", content="new")


async def test_own_write_counts_as_read(run, workspace):
    await run.text("write", path="f.txt", content="a")
    await run.text("write", path="f.txt", content="b")
    assert (workspace / "f.txt").read_text() == "b"


async def test_refusals(run, workspace, tmp_path):
    (workspace / "d").mkdir()
    assert "is a folder" in await run.error("write", path="d", content="x")
    assert "outside the workspace" in await run.error("write", path="/tmp/../etc/x", content="x")
    (tmp_path / "target").mkdir()
    (workspace / "out").symlink_to(tmp_path / "target")
    assert "symbolic link" in await run.error("write", path="out/evil.txt", content="x")
    assert not (tmp_path / "target" / "evil.txt").exists()


async def test_a_lone_surrogate_in_the_content_is_refused_naming_the_place_and_nothing_is_written(run, workspace):
    text = await run.error("write", path="notes.txt", content="ok \udc80 then")  # JSON "\udc80" from a model
    assert text == (
        "Cannot write notes.txt: content holds a lone surrogate (U+DC80 at character 4), which UTF-8 cannot encode; "
        "nothing was written. Send the character itself."
    )
    assert not (workspace / "notes.txt").exists()
