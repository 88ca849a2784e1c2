import os

import pytest

from jupyter_agent.tools import ToolError, Workspace


def test_relative_and_absolute_paths_inside_resolve(workspace):
    (workspace / "a.txt").write_text("x")
    space = Workspace(workspace)
    assert space.resolve("a.txt") == workspace.resolve() / "a.txt"
    assert space.resolve(str(workspace / "a.txt")) == workspace.resolve() / "a.txt"
    assert space.resolve("sub/../a.txt") == workspace.resolve() / "a.txt"
    assert space.resolve(".") == workspace.resolve()


def test_missing_leaf_is_allowed_for_writes(workspace):
    assert Workspace(workspace).resolve("new/dir/file.py") == workspace.resolve() / "new/dir/file.py"


@pytest.mark.parametrize("path", ["../outside.txt", "a/../../x", "/etc/passwd"])
def test_escapes_are_refused_with_guidance(workspace, path):
    with pytest.raises(ToolError, match="outside the workspace"):
        Workspace(workspace).resolve(path)


def test_symlink_out_is_refused(workspace, tmp_path):
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", workspace / "link.txt")
    os.symlink(tmp_path, workspace / "linkdir")
    space = Workspace(workspace)
    with pytest.raises(ToolError, match="symbolic link"):
        space.resolve("link.txt")
    with pytest.raises(ToolError, match="symbolic link"):
        space.resolve("linkdir/secret.txt")


def test_symlink_inside_resolves_to_its_target(workspace):
    (workspace / "real.txt").write_text("x")
    os.symlink(workspace / "real.txt", workspace / "alias.txt")
    assert Workspace(workspace).resolve("alias.txt") == workspace.resolve() / "real.txt"


def test_prefix_sibling_is_outside(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws2").mkdir()
    with pytest.raises(ToolError):
        Workspace(tmp_path / "ws").resolve("../ws2/x")


def test_empty_path_is_refused(workspace):
    with pytest.raises(ToolError, match="Invalid path"):
        Workspace(workspace).resolve("")


def test_workspace_must_be_a_folder(tmp_path):
    with pytest.raises(ValueError, match="Workspace is not a directory"):
        Workspace(tmp_path / "missing")


def test_relative_names_use_forward_slashes(workspace):
    space = Workspace(workspace)
    assert space.relative(space.root / "a" / "b.py") == "a/b.py"
    assert space.relative(space.root) == "."


def test_a_path_swapped_while_it_is_resolved_is_tried_again_then_refused_in_one_line(workspace, monkeypatch):
    # realpath's lstat saw a link, then readlink found a regular file: EINVAL (a swap in between).
    space = Workspace(workspace)
    real_realpath = os.path.realpath
    failures = [OSError(22, "Invalid argument")]

    def swapped_once(path, *args, **kwargs):
        if failures:
            raise failures.pop()
        return real_realpath(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", swapped_once)
    assert space.resolve("f.txt") == space.root / "f.txt"
    failures.extend(OSError(22, "Invalid argument") for _ in range(3))
    with pytest.raises(ToolError) as refused:
        space.resolve("f.txt")
    assert str(refused.value) == "Cannot resolve 'f.txt': Invalid argument (it kept changing while it was looked at)."
