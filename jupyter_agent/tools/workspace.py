"""The workspace boundary: every path a coding tool touches resolves inside one folder.

``resolve`` names a tool argument's real path (``realpath``), so a link that points outside is
caught the same way as ``..`` or an absolute path, with a message the model can act on; a missing
leaf is allowed (``write`` creates files). What is then opened, listed or replaced is reached
through folder descriptors (``open``, ``status``, ``folder_of``; see ``contained``): a folder
swapped for a link after the check cannot send the tool outside.
"""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_agent.tools.contained import OutsideWorkspace, locate, open_inside, parts_of, status_inside
from jupyter_agent.tools.errors import ToolError

RESOLVE_ATTEMPTS = 3  # a swap that lands between lstat and readlink twice in a row is an attack, not bad luck


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
        real = self._realpath(lexical, path)
        if self.contains(real):
            return real
        if self.contains(lexical):
            raise self.outside(repr(path), str(real))
        raise ToolError(
            f"Path {path!r} is outside the workspace {self.root}. "
            "Use a path inside it; relative paths are resolved against the workspace."
        )

    @staticmethod
    def _realpath(lexical: Path, path: str) -> Path:
        # realpath reads each link after an lstat said it was one: a link swapped for a file in
        # between fails with EINVAL. Tried again; a path that keeps changing is refused, not a crash.
        failure = ""
        for _ in range(RESOLVE_ATTEMPTS):
            try:
                return Path(os.path.realpath(lexical))
            except OSError as error:
                failure = error.strerror or str(error)
        raise ToolError(f"Cannot resolve {path!r}: {failure} (it kept changing while it was looked at).")

    def outside(self, shown: str, target: str) -> ToolError:
        """The refusal of a path that leads out through a symbolic link (to ``target``)."""
        return ToolError(
            f"Path {shown} leads outside the workspace through a symbolic link (to {target}). "
            f"Only files inside {self.root} can be used."
        )

    def open(self, path: str | os.PathLike[str], flags: int) -> int:
        """A descriptor of the object at ``path`` (inside the workspace), reached through folder descriptors."""
        return open_inside(str(self.root), parts_of(str(self.root), path), flags)

    def status(self, path: str | os.PathLike[str]) -> os.stat_result | None:
        """The status of the object at ``path``, links inside followed; ``None`` when there is none."""
        try:
            return status_inside(str(self.root), parts_of(str(self.root), path))
        except NotADirectoryError:
            return None

    def found(self, path: str | os.PathLike[str], shown: str, action: str = "read") -> os.stat_result | None:
        """``status`` for a tool about to ``action`` the path: a way out or a path that cannot be
        looked at is a ``ToolError`` the model can act on; ``None`` when nothing is there."""
        try:
            return self.status(path)
        except OutsideWorkspace as error:
            raise self.outside(shown, error.target) from None
        except OSError as error:
            raise ToolError(f"Cannot {action} {shown}: {error.strerror or error}") from None

    def folder_of(self, path: str | os.PathLike[str], *, create: bool = False) -> tuple[int, str]:
        """``(folder descriptor, name)`` of ``path``'s last component (close the descriptor);
        ``create`` makes missing folders on the way."""
        return locate(str(self.root), parts_of(str(self.root), path), create=create)

    def relative(self, path: str | os.PathLike[str]) -> str:
        """How results name a path: relative to the workspace, with forward slashes."""
        relative = os.path.relpath(os.fspath(path), self.root)
        return Path(relative).as_posix()


def as_workspace(workspace: Workspace | str | os.PathLike[str]) -> Workspace:
    return workspace if isinstance(workspace, Workspace) else Workspace(workspace)


__all__ = ["OutsideWorkspace", "Workspace", "as_workspace"]
