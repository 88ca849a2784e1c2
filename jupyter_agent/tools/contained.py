"""Reaching a path inside the workspace through folder descriptors: the object checked is the one opened.

``realpath`` and then ``open`` leaves a window: a folder swapped for a symbolic link in between
sends the open outside the workspace. Here every component is opened relative to the descriptor
of the folder before it, with ``O_NOFOLLOW``, so the kernel never follows a link on its own.
Links are followed here instead: read with ``readlink`` in their folder and resolved the same
way, a relative target from the link's folder, an absolute one from the workspace root (it must
lie inside); ``..`` goes back to the folder the walk came from and never above the root; at most
``MAX_LINKS`` links (a loop fails with ``ELOOP``). A component swapped between being looked at and
being opened is looked at again, so a swap can change what is found, never where.

``locate`` gives the folder that holds a path's last component (a descriptor) and its name;
``open_inside`` and ``status_inside`` open and stat the object itself.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence

from jupyter_agent.errors import JupyterAgentError

MAX_LINKS = 40  # as the kernel's own limit (ELOOP)
# A component swapped between lstat and open is looked at again; a swapper faster than this many
# looks gets a refusal, never a way out.
_RETRIES = 64
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class OutsideWorkspace(OSError, JupyterAgentError):
    """The path leads outside the workspace (through a link whose target is ``target``)."""

    def __init__(self, target: str) -> None:
        super().__init__(errno.EXDEV, f"leads outside the workspace (to {target})")
        self.target = target


def parts_of(root: str, path: str | os.PathLike[str]) -> list[str]:
    """The components of ``path`` below ``root`` (an absolute path inside it, or a relative one)."""
    text = os.fspath(path)
    if os.path.isabs(text):
        if text == root:
            return []
        if not text.startswith(root.rstrip("/") + "/"):
            raise OutsideWorkspace(text)
        text = text[len(root.rstrip("/")) + 1 :]
    return [part for part in text.split("/") if part not in ("", ".")]


def locate(root: str, parts: Sequence[str], *, follow: bool = True, create: bool = False) -> tuple[int, str]:
    """``(folder, name)``: a descriptor of the folder that holds the last of ``parts`` (the caller
    closes it) and that component's name (``"."`` for the root itself). ``follow``: a last
    component that is a link is resolved too, so ``name`` is never a link (unless swapped in since).
    ``create``: missing folders on the way are made. Raises ``OutsideWorkspace``, ``FileNotFoundError``,
    ``NotADirectoryError`` or ``OSError(ELOOP)``."""
    stack = [os.open(root, FOLDER_FLAGS)]
    try:
        pending = [part for part in reversed(parts) if part not in ("", ".")]
        links = 0
        while pending:
            name = pending.pop()
            if name == "..":
                if len(stack) == 1:
                    raise OutsideWorkspace(os.path.join(root, ".."))
                os.close(stack.pop())
                continue
            last = not pending
            target = _step(stack, name, last=last, follow=follow, create=create)
            if target is None:
                if last:
                    return stack.pop(), name
                continue
            links += 1
            if links > MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
            if os.path.isabs(target):
                inside = _absolute_target(root, target)
                while len(stack) > 1:
                    os.close(stack.pop())
                pending.extend(reversed(inside))
            else:
                pending.extend(part for part in reversed(target.split("/")) if part not in ("", "."))
        return stack.pop(), "."
    finally:
        for descriptor in stack:
            os.close(descriptor)


def _step(stack: list[int], name: str, *, last: bool, follow: bool, create: bool) -> str | None:
    """One component: a link's target (to resolve next), or None once it is entered (or is the last)."""
    folder = stack[-1]
    for _ in range(_RETRIES):
        try:
            status: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            status = None
        if status is not None and stat.S_ISLNK(status.st_mode) and (follow or not last):
            try:
                return os.readlink(name, dir_fd=folder)
            except OSError as error:
                if error.errno in (errno.EINVAL, errno.ENOENT):
                    continue  # swapped for something else since the lstat: look again
                raise
        if last:
            return None
        if status is None:
            if not create:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
            try:
                os.mkdir(name, 0o777, dir_fd=folder)
            except FileExistsError:
                pass
        elif not stat.S_ISDIR(status.st_mode) and not stat.S_ISLNK(status.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        try:
            stack.append(os.open(name, FOLDER_FLAGS, dir_fd=folder))
            return None
        except OSError as error:
            if error.errno not in (errno.ENOTDIR, errno.ELOOP, errno.ENOENT):
                raise
            # A link or a file swapped in since the lstat (O_NOFOLLOW refused it): look again.
    raise OSError(errno.EAGAIN, "the path kept changing while it was opened", name)


def _absolute_target(root: str, target: str) -> list[str]:
    """The components below ``root`` of a link's absolute target; ``OutsideWorkspace`` if it is not inside."""
    try:
        return parts_of(root, target)
    except OutsideWorkspace:
        pass
    # A target named through a link outside (``/tmp/x`` where /tmp/x leads into the workspace): its
    # real path decides, and is then walked from the root like any other.
    real = os.path.realpath(target)
    return parts_of(root, real)


def open_inside(root: str, parts: Sequence[str], flags: int) -> int:
    """A descriptor of the object at ``parts`` (links inside followed), opened with ``O_NOFOLLOW``."""
    for _ in range(_RETRIES):
        folder, name = locate(root, parts)
        try:
            return os.open(name, flags | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=folder)
        except OSError as error:
            if error.errno != errno.ELOOP or name == ".":
                raise
            # The last component became a link after it was located: locate it again.
        finally:
            os.close(folder)
    raise OSError(errno.EAGAIN, "the path kept changing while it was opened", parts[-1] if parts else ".")


def status_inside(root: str, parts: Sequence[str]) -> os.stat_result | None:
    """The status of the object at ``parts`` (links inside followed); ``None`` when it does not exist."""
    try:
        folder, name = locate(root, parts)
    except FileNotFoundError:
        return None
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    finally:
        os.close(folder)


__all__ = ["FOLDER_FLAGS", "MAX_LINKS", "OutsideWorkspace", "locate", "open_inside", "parts_of", "status_inside"]
