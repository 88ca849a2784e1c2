"""Read-before-write: an existing file may be changed only after the agent has read it, as it is.

The tracker keeps a content digest per file. Comparing digests (not modification times) catches
a change made within the file system's timestamp granularity, and ignores a mere ``touch``.
One tracker may serve several tool lists (the notebook keeps one per session).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from jupyter_agent.tools.errors import ToolError


def new_digest():
    # blake2b is the fastest strong hash in hashlib; collisions are not a concern here.
    return hashlib.blake2b(digest_size=16)


def digest_of(data: bytes) -> bytes:
    digest = new_digest()
    digest.update(data)
    return digest.digest()


class ReadTracker:
    def __init__(self) -> None:
        self._digests: dict[Path, bytes] = {}
        # Tools run their file work in worker threads.
        self._lock = threading.Lock()

    def record(self, path: Path, digest: bytes) -> None:
        """Remembers the content the agent has seen (after a read, or after its own write)."""
        with self._lock:
            self._digests[path] = digest

    def forget(self, path: Path) -> None:
        with self._lock:
            self._digests.pop(path, None)

    def has_read(self, path: Path) -> bool:
        with self._lock:
            return path in self._digests

    def require_current(self, path: Path, current: bytes, display: str, action: str) -> None:
        """Raises a ``ToolError`` unless ``current`` (the file's bytes now) is what was read."""
        with self._lock:
            seen = self._digests.get(path)
        if seen is None:
            raise ToolError(
                f"{display} already exists and has not been read in this session. "
                f"Read it with the read tool first, then retry the {action}."
            )
        if seen != digest_of(current):
            raise ToolError(f"{display} has changed on disk since it was last read. Read it again, then retry the {action}.")
