"""Sessions next to the notebook: the JSONL store, resume, branches, usage, undo, context files."""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.model.secrets import Redactor
    from jupyter_agent.session.branch import SessionUsage
    from jupyter_agent.session.catalog import SessionInfo, list_sessions, session_path, sessions_folder
    from jupyter_agent.session.context_files import ContextFile, context_prompt, find_context_files
    from jupyter_agent.session.journal import LoadProblem, SessionWarning
    from jupyter_agent.session.lock import SessionLockedError
    from jupyter_agent.session.recorder import SessionRecorder
    from jupyter_agent.session.records import (
        BranchRecord,
        CompactionRecord,
        LabelRecord,
        MessageRecord,
        Record,
        RequestRecord,
        SessionHeader,
        UsageRecord,
    )
    from jupyter_agent.session.redact import looks_secret, scrub_options
    from jupyter_agent.session.snapshots import Conflict, FileChange, SnapshotStep, SnapshotStore, UndoResult
    from jupyter_agent.session.store import SessionStore, SessionWriteError

__all__ = [
    "BranchRecord",
    "CompactionRecord",
    "Conflict",
    "ContextFile",
    "FileChange",
    "LabelRecord",
    "LoadProblem",
    "MessageRecord",
    "Record",
    "Redactor",
    "RequestRecord",
    "SessionHeader",
    "SessionInfo",
    "SessionLockedError",
    "SessionRecorder",
    "SessionStore",
    "SessionUsage",
    "SessionWarning",
    "SessionWriteError",
    "SnapshotStep",
    "SnapshotStore",
    "UndoResult",
    "UsageRecord",
    "context_prompt",
    "find_context_files",
    "list_sessions",
    "looks_secret",
    "scrub_options",
    "session_path",
    "sessions_folder",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
