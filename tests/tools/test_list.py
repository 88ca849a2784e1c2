import os

import pytest

from jupyter_agent.tools import OutputCaps

pytestmark = pytest.mark.anyio


async def test_tree_with_sizes_and_hidden_entries_left_out(run, workspace):
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "pkg" / "mod.py").write_text("x" * 2048)
    (workspace / "README.md").write_text("hi")
    for hidden in (".git", "node_modules", "__pycache__", ".cache"):
        (workspace / hidden).mkdir()
        (workspace / hidden / "f").write_text("x")
    (workspace / ".env").write_text("SECRET=1")
    text = await run.text("list")
    assert text == "./\n  src/\n    pkg/\n      mod.py (2.0 KB)\n  README.md (2 B)"


async def test_subfolder_and_file_paths(run, workspace):
    (workspace / "a").mkdir()
    (workspace / "a" / "b.txt").write_text("123")
    assert await run.text("list", path="a") == "a/\n  b.txt (3 B)"
    assert await run.text("list", path="a/b.txt") == "a/b.txt (3 B)"


async def test_big_tree_shows_top_levels_and_marks_unexpanded_folders(workspace, run_with):
    for folder in range(5):
        for index in range(10):
            path = workspace / f"d{folder}" / f"sub{index}"
            path.mkdir(parents=True)
            (path / "f.txt").write_text("x")
    run = run_with(caps=OutputCaps(list_max_entries=30))
    text = await run.text("list")
    assert "  d0/\n    sub0/" in text
    assert "sub0/ …" in text and "Listing cut at 30 entries" in text


async def test_errors(run, workspace):
    assert "Folder not found" in await run.error("list", path="missing")
    assert "outside the workspace" in await run.error("list", path="..")


async def test_empty_folder_and_link_out_not_followed(run, workspace, tmp_path):
    assert "is empty" in await run.text("list")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("s")
    os.symlink(tmp_path / "outside", workspace / "out")
    assert "secret" not in await run.text("list")
