"""The workspace boundary: every path a coding tool touches resolves inside one folder.

Resolution follows symbolic links (``realpath``), so a link that points outside is caught the
same way as ``..`` or an absolute path. A missing leaf is allowed (``write`` creates files).
"""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_agent.tools.errors import ToolError


class Workspace:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        resolved = Path(os.path.realpath(os.fspath(root)))
        if not resolved.is_dir():
            raise ValueError(f"Workspace is not a directory: {root}")
        self.root = resolved

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Whether an already resolved (real) path is the root or below it."""
        path = Path(path)
        return path == self.root or path.is_relative_to(self.root)

    def resolve(self, path: str) -> Path:
        """The real absolute path for a tool argument, or a ``ToolError`` the model can act on."""
        if not path or "\x00" in path:
            raise ToolError(f"Invalid path {path!r}: give a file or folder path inside the workspace.")
        lexical = Path(os.path.normpath(self.root / path))
        real = Path(os.path.realpath(lexical))
        if self.contains(real):
            return real
        if self.contains(lexical):
            raise ToolError(
                f"Path {path!r} leads outside the workspace through a symbolic link (to {real}). "
                f"Only files inside {self.root} can be used."
            )
        raise ToolError(
            f"Path {path!r} is outside the workspace {self.root}. "
            "Use a path inside it; relative paths are resolved against the workspace."
        )

    def relative(self, path: str | os.PathLike[str]) -> str:
        """How results name a path: relative to the workspace, with forward slashes."""
        relative = os.path.relpath(os.fspath(path), self.root)
        return Path(relative).as_posix()


def as_workspace(workspace: Workspace | str | os.PathLike[str]) -> Workspace:
    return workspace if isinstance(workspace, Workspace) else Workspace(workspace)
