"""Paths reached through folder descriptors: links inside followed, links out refused, swaps after a check."""

import errno
import os

import pytest

from jupyter_agent.tools import Workspace
from jupyter_agent.tools.contained import OutsideWorkspace, locate, open_inside, parts_of, status_inside
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.regular_file import read_regular, replace_atomically


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "ws"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("SECRET\n")
    return str(root), outside


def read(root, *parts):
    descriptor = open_inside(root, parts, os.O_RDONLY)
    try:
        return os.read(descriptor, 100).decode()
    finally:
        os.close(descriptor)


def test_links_inside_are_followed_relative_absolute_and_through_dot_dot(tree):
    root, _ = tree
    os.symlink("b/f.txt", os.path.join(root, "a", "rel"))
    os.symlink(os.path.join(root, "a", "b"), os.path.join(root, "abs"))
    os.symlink("../a/b", os.path.join(root, "a", "up"))
    assert read(root, "a", "rel") == "inside\n"
    assert read(root, "abs", "f.txt") == "inside\n"
    assert read(root, "a", "up", "f.txt") == "inside\n"
    assert read(root, "a", "b", "..", "b", "f.txt") == "inside\n"


def test_links_and_dot_dot_that_lead_out_are_refused(tree):
    root, outside = tree
    os.symlink(outside, os.path.join(root, "out"))
    os.symlink("../../outside/f.txt", os.path.join(root, "a", "rel_out"))
    for parts in (("out", "f.txt"), ("a", "rel_out"), ("..", "outside", "f.txt"), ("a", "..", "..", "outside", "f.txt")):
        with pytest.raises(OutsideWorkspace):
            read(root, *parts)


def test_a_link_loop_fails_with_eloop_and_a_missing_folder_with_enoent(tree):
    root, _ = tree
    os.symlink("loop", os.path.join(root, "loop"))
    with pytest.raises(OSError) as caught:
        read(root, "loop")
    assert caught.value.errno == errno.ELOOP
    with pytest.raises(FileNotFoundError):
        locate(root, ["missing", "f.txt"])
    assert status_inside(root, ["a", "missing.txt"]) is None


def test_create_makes_the_missing_folders_inside(tree):
    root, _ = tree
    folder, name = locate(root, ["new", "deeper", "file.txt"], create=True)
    os.close(folder)
    assert name == "file.txt" and os.path.isdir(os.path.join(root, "new", "deeper"))


def test_parts_of_an_absolute_path_outside_is_refused(tree):
    root, outside = tree
    assert parts_of(root, os.path.join(root, "a", "b")) == ["a", "b"]
    assert parts_of(root, root) == []
    with pytest.raises(OutsideWorkspace):
        parts_of(root, str(outside / "f.txt"))
    with pytest.raises(OutsideWorkspace):
        parts_of(root, root + "-sibling/f.txt")


def swap_for_link_out(root, outside):
    os.rename(os.path.join(root, "a"), os.path.join(root, "a.real"))
    os.symlink(outside.parent, os.path.join(root, "a"))  # a/b/f.txt would now be outside/../b/f.txt …
    os.makedirs(outside.parent / "b", exist_ok=True)
    (outside.parent / "b" / "f.txt").write_text("SECRET\n")


def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed_by_a_read(tree):
    root, outside = tree
    workspace = Workspace(root)
    checked = workspace.resolve("a/b/f.txt")  # inside when checked
    swap_for_link_out(root, outside)
    with pytest.raises(ToolError, match="leads outside the workspace through a symbolic link"):
        read_regular(workspace, checked, "a/b/f.txt", "edit", 1000)


def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed_by_a_write(tree):
    root, outside = tree
    workspace = Workspace(root)
    checked = workspace.resolve("a/b/new.txt")
    swap_for_link_out(root, outside)
    with pytest.raises(ToolError, match="leads outside the workspace through a symbolic link"):
        replace_atomically(workspace, checked, b"written", "a/b/new.txt")
    assert not (outside.parent / "b" / "new.txt").exists()
