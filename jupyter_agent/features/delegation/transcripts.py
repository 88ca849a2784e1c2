"""Transcripts of delegated sub-agents, each in a session file of its own.

The parent's session holds only a ``delegate`` call and its result; what a child read, ran and
concluded on the way is kept beside it, so nothing a sub-agent did is lost:
``<session>.children/<turn>-<child id>.jsonl``, a normal session file (``SessionStore`` reads it).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_agent.session.store import SessionStore

if TYPE_CHECKING:
    from jupyter_agent.features.delegation.child import ChildRunEvent
    from jupyter_agent.session.recorder import SessionRecorder


def turn_stamp() -> str:
    """Names one turn's children; child ids restart at 1 in every turn."""
    now = time.time()
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"-{int(now * 1000) % 1000:03d}"


class ChildTranscripts:
    def __init__(self, session_path: str | Path, turn: str | None = None) -> None:
        session_path = Path(session_path)
        self.folder = session_path.with_name(session_path.stem + ".children")
        self.turn = turn or turn_stamp()
        self._open: dict[str, tuple[SessionStore, SessionRecorder]] = {}

    def path_for(self, child_id: str) -> Path:
        return self.folder / f"{self.turn}-{child_id}.jsonl"

    def record(self, child_id: str, event: ChildRunEvent) -> None:
        """Records one of the child's run events; the file is created by its first message."""
        kind = getattr(event, "type", None)
        entry = self._open.get(child_id)
        if entry is None:
            if kind != "message":
                return  # a child refused or stopped before it said anything leaves no file
            store = SessionStore(self.path_for(child_id))
            entry = self._open[child_id] = (store, store.recorder())
        entry[1].record(event)
        if kind == "finish":  # every child ends with exactly one finish, even when cancelled
            self._close(child_id)

    def close(self) -> None:
        for child_id in list(self._open):
            self._close(child_id)

    def _close(self, child_id: str) -> None:
        store, _ = self._open.pop(child_id)
        store.sync()
        store.close()


__all__ = ["ChildTranscripts", "turn_stamp"]
