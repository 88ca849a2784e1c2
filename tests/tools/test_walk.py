import os
import threading

import pytest

from jupyter_agent.tools import Workspace
from jupyter_agent.tools.blocking import Stopped
from jupyter_agent.tools.walk import walk


def test_depth_first_in_name_order_with_depths(workspace):
    for path in ["b/x.txt", "a/y/z.txt", "c.txt"]:
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text("")
    entries = [(entry.relative, entry.is_dir, entry.depth) for entry in walk(str(workspace), Workspace(workspace))]
    assert entries == [
        ("a", True, 1),
        ("a/y", True, 2),
        ("a/y/z.txt", False, 3),
        ("b", True, 1),
        ("b/x.txt", False, 2),
        ("c.txt", False, 1),
    ]


def test_linked_folders_are_not_entered_and_outside_files_not_listed(workspace, tmp_path):
    (workspace / "d").mkdir()
    (workspace / "d" / "f.txt").write_text("")
    os.symlink(workspace / "d", workspace / "loop")
    (tmp_path / "out.txt").write_text("")
    os.symlink(tmp_path / "out.txt", workspace / "out.txt")
    os.symlink(workspace / "missing", workspace / "dangling")
    names = [entry.relative for entry in walk(str(workspace), Workspace(workspace))]
    assert names == ["d", "d/f.txt"]


def test_max_depth_and_stop(workspace):
    (workspace / "a" / "b").mkdir(parents=True)
    assert [entry.relative for entry in walk(str(workspace), Workspace(workspace), max_depth=1)] == ["a"]
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped):
        list(walk(str(workspace), Workspace(workspace), stop=stop))
