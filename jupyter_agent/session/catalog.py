"""Where sessions live and what is in them: ``analysis.ipynb`` → ``analysis.agent/<name>.jsonl``."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from jupyter_agent.session.journal import SessionWarning
from jupyter_agent.session.store import SessionStore

SESSION_SUFFIX = ".jsonl"
FOLDER_SUFFIX = ".agent"
# Names become file names: no separators, no hidden files, nothing a shell would mangle.
_VALID_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")


@dataclass(frozen=True)
class SessionInfo:
    name: str
    path: Path
    message_count: int  # messages on the active branch, summarized ones included
    last_activity: datetime | None
    model: str | None
    total_cost_usd: float
    problems: int = 0  # lines skipped when loading (torn or corrupt)


def sessions_folder(notebook_path: str | Path) -> Path:
    notebook = Path(notebook_path)
    return notebook.with_name(notebook.stem + FOLDER_SUFFIX)


def session_path(notebook_path: str | Path, name: str) -> Path:
    if not _VALID_NAME.fullmatch(name):
        raise ValueError(
            f"invalid session name {name!r}: use letters, digits, '.', '_' or '-' (at most 100, not starting with '.' or '-')"
        )
    return sessions_folder(notebook_path) / f"{name}{SESSION_SUFFIX}"


def list_sessions(folder: str | Path) -> list[SessionInfo]:
    """The sessions in a ``<stem>.agent`` folder, most recently active first.

    Reads without locking, so sessions open in another kernel are listed too. A ``.jsonl`` file with
    neither a session header nor a record is another file kept beside the sessions, not a session.
    """
    infos = []
    for path in Path(folder).glob(f"*{SESSION_SUFFIX}"):
        with warnings.catch_warnings():
            # Listing is not the place to nag about a torn line; ``problems`` counts them.
            warnings.simplefilter("ignore", SessionWarning)
            store = SessionStore(path, read_only=True)
        if store.header is None and not store.records():
            continue  # a feature's own JSONL beside the sessions (main.notebook-edits.jsonl), not a session
        last = store.last_activity
        infos.append(
            SessionInfo(
                name=path.stem,
                path=store.path,
                message_count=store.message_count,
                last_activity=datetime.fromtimestamp(last / 1000, tz=timezone.utc) if last else None,
                model=store.model,
                total_cost_usd=store.usage().spend_usd,
                problems=len(store.problems),
            )
        )
    epoch = datetime.min.replace(tzinfo=timezone.utc)
    infos.sort(key=lambda info: (info.last_activity or epoch, info.name), reverse=True)
    return infos


__all__ = ["SessionInfo", "list_sessions", "session_path", "sessions_folder"]
