"""What the extension's sessions view shows: the notebook's sessions and a read-only transcript.

Both read the session files (``<notebook>.agent/*.jsonl``) without locking, so sessions that
another kernel is writing are listed too.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.notebook.comm.protocol import SessionSummary

if TYPE_CHECKING:
    from jupyter_agent.messages import Message

# The session store and the transcript renderer are imported when the view is first used:
# ``%load_ext`` registers the comm target, and importing them then (~0.3 s) held up the
# notebook's next cell.

# A transcript is for reading, not an archive: long tool outputs are cut (the file keeps them).
RESULT_CHARS = 2_000
_SUFFIX = ".jsonl"


class UnknownSessionError(LookupError, JupyterAgentError):
    pass


def session_summaries(folder: Path | None, running: Iterable[str] = ()) -> list[SessionSummary]:
    """The sessions in ``folder``, most recently active first; none when the folder is missing."""
    if folder is None or not folder.is_dir():
        return []
    from jupyter_agent.session import list_sessions

    busy = set(running)
    return [
        SessionSummary(
            name=info.name,
            messages=info.message_count,
            last_activity=info.last_activity.isoformat() if info.last_activity else None,
            model=info.model,
            cost_usd=info.total_cost_usd,
            running=info.name in busy,
        )
        for info in list_sessions(folder)
    ]


def session_file(folder: Path | None, name: str) -> Path:
    """The file of session ``name`` in ``folder``; only names of existing sessions are accepted."""
    # The name comes from the frontend: it must not reach outside the folder.
    if folder is None or not name or "/" in name or "\\" in name or name.startswith("."):
        raise UnknownSessionError(f"no session named {name!r} beside this notebook")
    path = folder / f"{name}{_SUFFIX}"
    if not path.is_file():
        raise UnknownSessionError(f"no session named {name!r} in {folder}")
    return path


def read_history(path: Path) -> list[Message]:
    from jupyter_agent.session import SessionStore, SessionWarning

    with warnings.catch_warnings():
        # A torn last line is skipped by the store; the view need not warn in the kernel's log.
        warnings.simplefilter("ignore", SessionWarning)
        store = SessionStore(path, read_only=True)
    return store.history()


def transcript_markdown(messages: Sequence[Message]) -> str:
    """The conversation as Markdown: prompts, answers, thinking folded, tool calls with results."""
    if not messages:
        return "*This session has no messages yet.*\n"
    from jupyter_agent.notebook.panel.transcript_document import messages_document

    return messages_document(messages, result_chars=RESULT_CHARS).markdown() + "\n"


__all__ = ["RESULT_CHARS", "UnknownSessionError", "read_history", "session_file", "session_summaries", "transcript_markdown"]
