import pytest

from jupyter_agent.session import SessionStore, SnapshotStore
from jupyter_agent.session import snapshots as snapshots_module


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def snapshots(tmp_path):
    return SnapshotStore(tmp_path / "analysis.agent" / "main.snapshots")


def agent_writes(snapshots, step, path, content):
    snapshots.capture(step, path)
    if content is None:
        path.unlink()
    else:
        path.write_text(content)


def test_undo_restores_a_modified_file(snapshots, workspace):
    target = workspace / "data.csv"
    target.write_text("a,b\n1,2\n")
    agent_writes(snapshots, 1, target, "a,b\n1,3\n")
    snapshots.settle()
    result = snapshots.undo()
    assert result.ok and result.restored == [target] and result.step == 1
    assert target.read_text() == "a,b\n1,2\n"


def test_undo_removes_a_created_file_and_recreates_a_deleted_one(snapshots, workspace):
    created, deleted = workspace / "new.py", workspace / "old.py"
    deleted.write_text("print('old')\n")
    agent_writes(snapshots, 1, created, "print('new')\n")
    agent_writes(snapshots, 1, deleted, None)
    result = snapshots.undo()
    assert result.ok and set(result.restored) == {created, deleted}
    assert not created.exists()
    assert deleted.read_text() == "print('old')\n"


def test_undo_refuses_when_the_file_changed_since_and_changes_nothing(snapshots, workspace):
    first, second = workspace / "a.txt", workspace / "b.txt"
    first.write_text("one\n")
    second.write_text("two\n")
    agent_writes(snapshots, 1, first, "one, by the agent\n")
    agent_writes(snapshots, 1, second, "two, by the agent\n")
    snapshots.settle()
    second.write_text("two, edited by the user\n")
    result = snapshots.undo()
    assert not result.ok and result.restored == []
    assert [(c.path, c.reason) for c in result.conflicts] == [(second, "changed since the agent's step")]
    assert first.read_text() == "one, by the agent\n"
    assert second.read_text() == "two, edited by the user\n"


def test_undo_refuses_a_file_recreated_after_the_agent_deleted_it(snapshots, workspace):
    target = workspace / "gone.txt"
    target.write_text("x\n")
    agent_writes(snapshots, 1, target, None)
    snapshots.settle()
    target.write_text("user's new file\n")
    result = snapshots.undo()
    assert [c.reason for c in result.conflicts] == ["created since the agent deleted it"]
    assert target.read_text() == "user's new file\n"


def test_steps_are_undone_latest_first_and_a_later_step_blocks_an_earlier_one(snapshots, workspace):
    target = workspace / "f.txt"
    target.write_text("v0\n")
    agent_writes(snapshots, 1, target, "v1\n")
    agent_writes(snapshots, 2, target, "v2\n")
    snapshots.settle()
    assert snapshots.undo(step=1).conflicts  # step 2 changed it since
    assert snapshots.undo().step == 2 and target.read_text() == "v1\n"
    assert snapshots.undo().step == 1 and target.read_text() == "v0\n"
    with pytest.raises(ValueError, match="nothing to undo"):
        snapshots.undo()
    with pytest.raises(ValueError, match="no step 7 to undo"):
        snapshots.undo(step=7)


def test_only_the_state_before_the_first_change_of_a_step_is_kept(snapshots, workspace):
    target = workspace / "f.txt"
    target.write_text("original\n")
    agent_writes(snapshots, 3, target, "edit 1\n")
    agent_writes(snapshots, 3, target, "edit 2\n")
    assert len(snapshots.steps()) == 1
    snapshots.undo()
    assert target.read_text() == "original\n"


def test_repeated_step_numbers_of_a_new_run_start_a_new_entry(snapshots, workspace):
    target = workspace / "f.txt"
    target.write_text("v0\n")
    agent_writes(snapshots, 1, target, "v1\n")
    snapshots.settle()  # the first run's step 1 ended
    agent_writes(snapshots, 1, target, "v2\n")  # the next run's step 1
    assert [(s.seq, s.step, s.undone) for s in snapshots.steps()] == [(1, 1, False), (2, 1, False)]
    snapshots.undo()
    assert target.read_text() == "v1\n"


def test_snapshots_survive_a_new_store_object(tmp_path, workspace):
    target = workspace / "f.txt"
    target.write_text("before\n")
    agent_writes(SnapshotStore(tmp_path / "snaps"), 1, target, "after\n")
    assert SnapshotStore(tmp_path / "snaps").undo().ok
    assert target.read_text() == "before\n"


def test_diff_lists_what_the_agent_changed(snapshots, workspace):
    modified, created, deleted = workspace / "m.txt", workspace / "c.txt", workspace / "d.txt"
    modified.write_text("keep\nold line\n")
    deleted.write_text("bye\n")
    agent_writes(snapshots, 1, modified, "keep\nnew line\n")
    agent_writes(snapshots, 2, created, "hello\n")
    agent_writes(snapshots, 2, deleted, None)
    changes = {change.path: change for change in snapshots.diff()}
    assert {path: change.status for path, change in changes.items()} == {
        modified: "modified",
        created: "created",
        deleted: "deleted",
    }
    assert changes[modified].diff.splitlines()[2:] == ["@@ -1,2 +1,2 @@", " keep", "-old line", "+new line"]
    assert changes[modified].diff.startswith(f"--- a/{modified}\n+++ b/{modified}\n")
    assert "+hello" in changes[created].diff and "-bye" in changes[deleted].diff
    assert [c.path for c in snapshots.diff(step=1)] == [modified]
    snapshots.undo()
    assert [c.path for c in snapshots.diff()] == [modified]


def test_diff_of_binary_files_is_a_note(snapshots, workspace):
    target = workspace / "img.png"
    target.write_bytes(b"\x89PNG\0\x01")
    snapshots.capture(1, target)
    target.write_bytes(b"\x89PNG\0\x02")
    assert snapshots.diff()[0].diff == f"Binary file {target} modified\n"


def test_files_too_large_to_snapshot_are_never_restored(snapshots, workspace, monkeypatch):
    monkeypatch.setattr(snapshots_module, "MAX_SNAPSHOT_BYTES", 4)
    target = workspace / "big.bin"
    target.write_text("0123456789")
    agent_writes(snapshots, 1, target, "changed")
    result = snapshots.undo()
    assert [c.reason for c in result.conflicts] == ["not snapshotted (larger than 4 bytes)"]
    assert target.read_text() == "changed"


def test_a_session_keeps_its_snapshots_beside_it(session_file):
    store = SessionStore(session_file)
    assert store.snapshots().folder == session_file.parent / "main.snapshots"


def test_a_step_that_changed_nothing_is_skipped_by_undo(snapshots, workspace):
    target = workspace / "f.txt"
    target.write_text("v0\n")
    agent_writes(snapshots, 1, target, "v1\n")
    snapshots.settle()
    snapshots.capture(2, target)  # e.g. the write was refused: the file stays as it was
    snapshots.settle()
    result = snapshots.undo()
    assert result.step == 1 and result.restored == [target] and target.read_text() == "v0\n"
    assert snapshots.undo(step=2).restored == []


def mode_of(path):
    return path.stat().st_mode & 0o777


def test_snapshots_of_a_private_file_stay_private(snapshots, workspace):
    secret = workspace / ".env"
    secret.write_text("TOKEN=abc\n")
    secret.chmod(0o600)
    script = workspace / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    agent_writes(snapshots, 1, secret, "TOKEN=changed\n")
    agent_writes(snapshots, 1, script, "echo bye\n")
    snapshots.settle()
    blobs = snapshots.folder / "blobs"
    assert mode_of(snapshots.folder) == 0o700 and mode_of(blobs) == 0o700
    assert {path.read_text(): mode_of(path) for path in blobs.iterdir()} == {
        "TOKEN=abc\n": 0o600,
        "TOKEN=changed\n": 0o600,
        "echo hi\n": 0o755,
        "echo bye\n": 0o755,
    }
    assert all(mode_of(path) == 0o600 for path in snapshots.folder.glob("*.json"))


def test_shared_content_keeps_the_strictest_mode(snapshots, workspace):
    public, private = workspace / "a.txt", workspace / "b.txt"
    for path, mode in ((public, 0o644), (private, 0o600)):
        path.write_text("same\n")
        path.chmod(mode)
    agent_writes(snapshots, 1, public, "x\n")
    agent_writes(snapshots, 1, private, "y\n")
    blob = next(path for path in (snapshots.folder / "blobs").iterdir() if path.read_text() == "same\n")
    assert mode_of(blob) == 0o600


def test_undo_of_a_deletion_restores_the_file_with_its_mode(snapshots, workspace):
    secret = workspace / ".env"
    secret.write_text("TOKEN=abc\n")
    secret.chmod(0o600)
    agent_writes(snapshots, 1, secret, None)
    assert snapshots.undo().ok
    assert secret.read_text() == "TOKEN=abc\n" and mode_of(secret) == 0o600


def test_an_open_snapshot_folder_of_an_earlier_version_is_tightened(tmp_path, workspace):
    folder = tmp_path / "old.snapshots"
    (folder / "blobs").mkdir(parents=True)
    folder.chmod(0o755)
    (folder / "blobs").chmod(0o755)
    store = SnapshotStore(folder)
    target = workspace / "f.txt"
    target.write_text("1")
    agent_writes(store, 1, target, "2")
    assert mode_of(folder) == 0o700 and mode_of(folder / "blobs") == 0o700


def test_a_mark_joins_the_steps_entry_and_find_counts_changes_kept_elsewhere(snapshots, workspace):
    target = workspace / "notes.txt"
    target.write_text("old\n")
    agent_writes(snapshots, 1, target, "new\n")
    assert snapshots.mark(1) == 1  # the same step: its files and its variables undo together
    assert snapshots.mark(2) == 2  # a later step with no file change
    assert snapshots.find().seq == 1  # entry 2 changed nothing the store knows of
    assert snapshots.find(also={2}).seq == 2
    assert snapshots.undo(seq=2).restored == []
    assert snapshots.find().seq == 1 and snapshots.undo(seq=1).restored == [target]
    with pytest.raises(ValueError, match="^step 1 is undone already$"):
        snapshots.undo(seq=1)
    with pytest.raises(ValueError, match="^nothing to undo$"):
        snapshots.find()
    assert SnapshotStore(snapshots.folder).steps()[1].step == 2  # the mark is on disk
