"""atomic_write: the one way a whole file is replaced; its mode, its owner, failures, a folder descriptor."""

import os
import stat

import pytest

from jupyter_agent.files import atomic_write, current_umask


def test_a_new_file_gets_the_umask_mode_or_the_one_asked_for(tmp_path):
    atomic_write(tmp_path / "plain.txt", b"x")
    atomic_write(tmp_path / "private.json", b"{}", new_mode=0o600)
    assert stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == 0o666 & ~current_umask()
    assert stat.S_IMODE((tmp_path / "private.json").stat().st_mode) == 0o600


def test_a_replaced_file_keeps_its_mode_unless_one_is_given(tmp_path):
    target = tmp_path / "secret.env"
    target.write_bytes(b"KEY=1\n")
    target.chmod(0o640)
    atomic_write(target, b"KEY=2\n", new_mode=0o600)
    assert (target.read_bytes(), stat.S_IMODE(target.stat().st_mode)) == (b"KEY=2\n", 0o640)
    atomic_write(target, b"KEY=3\n", mode=0o600)
    assert (target.read_bytes(), stat.S_IMODE(target.stat().st_mode)) == (b"KEY=3\n", 0o600)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file away")
def test_keep_owner_gives_the_new_content_the_old_owner(tmp_path):
    target = tmp_path / "theirs.txt"
    target.write_bytes(b"old")
    os.chown(target, 1234, 5678)
    atomic_write(target, b"new", keep_owner=True)
    status = target.stat()
    assert (status.st_uid, status.st_gid) == (1234, 5678)


def test_a_failed_write_leaves_the_old_content_and_no_temporary_file(tmp_path):
    target = tmp_path / "data.txt"
    target.write_bytes(b"old")

    with pytest.raises(TypeError):
        atomic_write(target, object())  # type: ignore[arg-type]  # fails after the temporary file exists
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["data.txt"]


def test_a_folder_descriptor_names_the_folder_written_into(tmp_path):
    folder = tmp_path / "real"
    folder.mkdir()
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        folder.rename(tmp_path / "moved")  # the descriptor follows the folder, not its old name
        (tmp_path / "real").mkdir()
        atomic_write("notes.txt", b"hello", dir_fd=descriptor)
    finally:
        os.close(descriptor)
    assert (tmp_path / "moved" / "notes.txt").read_bytes() == b"hello"
    assert os.listdir(tmp_path / "real") == []
    assert os.listdir(tmp_path / "moved") == ["notes.txt"]
