"""``SessionStore``: one append-only JSONL session file, its active branch and its usage.

The file is ``<notebook stem>.agent/<session>.jsonl`` (see ``catalog.session_path``); the store
itself knows only its path. Loading reads the file once; afterwards every write appends one line
per record and updates the in-memory index, so an append never re-reads the file.
Beside the file the writer keeps an index (``index_file``), so loading (``loading``) reads records
only when they are needed.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pydantic_core import PydanticSerializationError

from jupyter_agent.errors import UserFacingError
from jupyter_agent.messages import AssistantMessage, Message, ToolResultMessage, UserMessage, copy_message
from jupyter_agent.model.secrets import Redactor
from jupyter_agent.runtime import FatalToRun
from jupyter_agent.session.branch import Entry, SessionUsage
from jupyter_agent.session.index_file import IndexWriter, index_path
from jupyter_agent.session.journal import (
    JournalContents,
    JournalWriter,
    LoadProblem,
    without_surrogates,
)
from jupyter_agent.session.loading import StaleIndex, load_session, read_entries
from jupyter_agent.session.lock import SessionLock
from jupyter_agent.session.preload import take_preloaded
from jupyter_agent.session.records import (
    BranchRecord,
    CallSignature,
    CellRef,
    CompactionRecord,
    ForkOrigin,
    LabelRecord,
    MessageRecord,
    Record,
    RequestRecord,
    SessionHeader,
    UsageRecord,
    model_name,
    new_record_id,
    usage_fields,
)
from jupyter_agent.session.redact import scrub_options
from jupyter_agent.session.turns import TurnSpan

if TYPE_CHECKING:
    from jupyter_agent.session.branches import BranchInfo
    from jupyter_agent.session.snapshots import SnapshotStore

_MESSAGE_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)
_T = TypeVar("_T")


class SessionWriteError(OSError, FatalToRun, UserFacingError):
    """The session file could not be written (a full disk, a size limit, a lost mount).

    The record that failed is neither in the file nor in the store: nothing half-written stays.
    Raised by a run's recorder, it ends the run with this error (``FatalToRun``).
    """

    def __init__(self, path: Path, cause: OSError) -> None:
        reason = cause.strerror or str(cause) or type(cause).__name__
        super().__init__(cause.errno, f"could not write the session file {path}: {reason}")
        self.path = path
        self.cause = cause

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class SessionStore:
    """Read the session at ``path`` and append to it; only writing takes the lock.

    Opening a store reads the file and never locks it, so any number of stores may read a session
    another one writes. The first write (or ``claim()``) takes the writer's lock; a second writer
    then fails with ``SessionLockedError`` naming the holder. The lists returned by ``messages()``
    and ``history()`` are new, the messages in them are the store's own: copy before mutating.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, redactor: Redactor | None = None):
        self.path = Path(path).absolute()
        self.read_only = read_only
        self._redactor = redactor or Redactor()
        self._lock = SessionLock(self.path)
        self._writers: list[JournalWriter] = []
        self._indexes: list[IndexWriter] = []  # the index this writer keeps (see index_file)
        self._closed = False
        # Releases the lock and the descriptors of a store that is dropped without close().
        self._finalizer = weakref.finalize(self, _release, self._lock, self._writers, self._indexes)
        self._load()

    # -- reading -------------------------------------------------------------------------------

    @property
    def redactor(self) -> Redactor:
        """What every line passes through before it is written: register more secrets with ``add``."""
        return self._redactor

    @property
    def header(self) -> SessionHeader | None:
        return self._contents.header

    @property
    def problems(self) -> list[LoadProblem]:
        """Lines skipped when the file was loaded (torn last line, corrupt lines)."""
        return list(self._contents.problems)

    @property
    def tip(self) -> str | None:
        """The id of the newest record on the active branch."""
        return self._index.branch.tip

    @property
    def model(self) -> str | None:
        """The model of the latest request, usage record or assistant message on the branch."""
        return self._index.branch.model

    @property
    def last_activity(self) -> int | None:
        """Timestamp (ms) of the newest record on the branch."""
        records = self._index.branch.records
        return records[-1].ts if records else None

    def messages(self) -> list[Message]:
        """What the model gets: compactions applied as the runtime applied them."""
        return self._reading(lambda: self._index.branch.messages())

    def message_ids(self) -> list[str]:
        """Record ids aligned with ``messages()``; a summary message has its compaction's id."""
        return list(self._index.branch.view_ids)

    def history(self) -> list[Message]:
        """Every message of the branch, including those a compaction summarized."""
        return self._reading(lambda: self._index.branch.history_messages())

    @property
    def message_count(self) -> int:
        """How many messages the branch has, summarized ones included (``len(history())``, reading none)."""
        return len(self._index.branch.history)

    def records(self) -> list[Record]:
        return self._reading(lambda: self._index.branch.full_records())

    def usage(self) -> SessionUsage:
        """Totals over the usage records of the active branch."""
        total = self._index.branch.usage
        return SessionUsage(**vars(total))

    def labels(self) -> dict[str, str]:
        """label -> record id, for the labels on the active branch."""
        return dict(self._index.branch.labels)

    def turns(self) -> list[TurnSpan]:
        """The turns on the active branch, oldest first (each starts at its request record)."""
        return self._reading(lambda: self._index.branch.turns())

    def tool_results_newest_first(self, tool_name: str) -> Iterator[ToolResultMessage]:
        """The active branch's results of ``tool_name``, newest first, read as far as the caller goes."""
        return self._reading(lambda: self._index.branch.tool_results_newest_first(tool_name))

    def branches(self) -> list[BranchInfo]:
        """Every branch of the file: the active one first, then the others, oldest first."""
        from jupyter_agent.session.branches import list_branches

        return self._reading(lambda: list_branches(self._index, self._records_of))

    @property
    def session_ids(self) -> frozenset[str]:
        """This session's id and those of the sessions it was forked from (whose records it copies)."""
        header = self._contents.header
        if header is None:
            return frozenset()
        lineage = header.forked_from.sessions if header.forked_from is not None else []
        return frozenset([header.session_id, *lineage])

    # -- writing -------------------------------------------------------------------------------

    def append(self, message: Message, *, signature: CallSignature | None = None) -> str:
        """``signature``: for a tool result, this user's signature of its call (``session/trust.py``)."""
        if not isinstance(message, _MESSAGE_TYPES):
            kind = type(message).__name__
            raise TypeError(f"append() takes a UserMessage, AssistantMessage or ToolResultMessage, not {kind}")
        if signature is not None and not isinstance(message, ToolResultMessage):
            raise TypeError(f"only a tool result carries a signature, not a {type(message).__name__}")
        return self._append(MessageRecord, message=copy_message(message), signature=signature)

    def record_compaction(self, summary: str, first_kept_id: str, *, message: UserMessage | None = None) -> str:
        """From now on ``messages()`` is the first user message, the summary, then ``first_kept_id`` on.

        ``message``: the summary message exactly as the model saw it, when the runtime framed it.
        """
        if first_kept_id not in self._index.branch.position:
            raise ValueError(f"record {first_kept_id!r} is not on the active branch of {self.path}")
        if message is not None and not isinstance(message, UserMessage):
            raise TypeError(f"the summary message must be a UserMessage, not {type(message).__name__}")
        return self._append(CompactionRecord, summary=summary, first_kept_id=first_kept_id, message=message)

    def record_usage(self, step_usage: Any, *, model: Any = None, step: int | None = None, purpose: str = "step") -> str:
        """One request's usage: an object or mapping with the runtime's ``RunUsage`` fields.

        ``purpose`` other than "step" (e.g. "memory") is charged but not counted as a step.
        """
        return self._append(UsageRecord, step=step, model=model_name(model), purpose=purpose, **usage_fields(step_usage))

    def record_request(self, model: Any, options: Any = None, *, cell: CellRef | None = None) -> str:
        """Starts a turn: the model name and non-secret settings (never ``api_key`` or headers), and
        the notebook cell the turn comes from."""
        settings = scrub_options(options, self._redactor)
        return self._append(RequestRecord, model=model_name(model) or "", options=settings, cell=cell)

    def label(self, label: str, at: str | None = None) -> str:
        """Names record ``at`` (default: the tip), e.g. to fork from it later."""
        return self._append(LabelRecord, target_id=self._existing(at), label=label)

    def claim(self) -> None:
        """Takes the writer's lock now (the first write would): fails early when another writer holds it."""
        self._open_writer()

    def branch(self, at: str) -> str:
        """Makes the branch ending at record ``at`` active again; later appends continue from it."""
        self._open_writer()
        return self._write([BranchRecord(id=self._new_id(), parent_id=self._existing(at), at=at)])

    def redo(self, turn_start: str) -> str:
        """Branches just before record ``turn_start`` (a turn's request record): the next append
        continues from the record before it, and ``turn_start`` with what followed it stays on the
        branch it was on."""
        self._open_writer()  # first: taking the lock may load records another writer added
        at = self._index.by_id[self._existing(turn_start)].parent_id
        return self._write([BranchRecord(id=self._new_id(), parent_id=at, at=at, redo=turn_start)])

    def fork(self, path: str | Path, at: str | None = None) -> "SessionStore":
        """A new session file holding the branch up to record ``at`` (included; default: the tip)."""
        at = self._existing(at)
        forked = SessionStore(path, redactor=self._redactor)
        if forked._index.in_file:
            forked.close()
            raise FileExistsError(f"cannot fork {self.path} into {forked.path}: it already holds a session")
        shared = self._reading(lambda: self._records_of(self._index.path_to(at)))
        origin = ForkOrigin(path=str(self.path), at=at, sessions=sorted(self.session_ids))
        branch = BranchRecord(id=forked._new_id(shared), parent_id=at, at=at, source=str(self.path))
        forked._write([*shared, branch], header=SessionHeader(forked_from=origin))
        forked.sync()
        return forked

    def sync(self) -> None:
        """Makes everything written so far durable (fsync); called at every turn boundary."""
        if self._writer is not None:
            try:
                self._writer.sync()
            except OSError as error:
                raise SessionWriteError(self.path, error) from error

    def turn_boundary(self) -> None:
        self.sync()

    def close(self) -> None:
        self._closed = True
        self._finalizer()
        self._writers.clear()
        self._indexes.clear()

    @property
    def _writer(self) -> JournalWriter | None:
        return self._writers[0] if self._writers else None

    def recorder(self, **options: Any):
        """A ``SessionRecorder`` for a run continuing from ``messages()`` (pass those as its prior transcript)."""
        from jupyter_agent.session.recorder import SessionRecorder

        return SessionRecorder(self, prior_ids=self.message_ids(), **options)

    def snapshots(self) -> SnapshotStore:
        """The undo snapshots kept beside this session (``<session>.snapshots/``)."""
        from jupyter_agent.session.snapshots import SnapshotStore

        return SnapshotStore(self.path.with_name(self.path.stem + ".snapshots"))

    def __enter__(self) -> "SessionStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SessionStore({str(self.path)!r}, messages={self.message_count})"

    # -- internals -----------------------------------------------------------------------------

    def _load(self, *, use_index: bool = True) -> None:
        # A writer's store takes the reading the kernel's warm-up made of an unchanged file.
        preloaded = take_preloaded(self.path) if use_index and not self.read_only else None
        loaded = preloaded or load_session(self.path, use_index=use_index, chain=not self.read_only)
        self._contents: JournalContents = loaded.contents
        self._index, self._indexed = loaded.index, loaded.indexed
        # What the index lacks: written when this store takes the writer's lock (only a writer writes it).
        self._unindexed, self._unindexed_problems = loaded.unindexed, loaded.unindexed_problems
        self._contents.warn(self.path)

    def _reading(self, read: Callable[[], _T]) -> _T:
        """``read()``, reading the file afresh (without its index) if the index no longer fits it."""
        try:
            return read()
        except StaleIndex:
            self._load(use_index=False)
            if self._lock.held:
                self._start_index()
            return read()

    def _records_of(self, entries: Sequence[Entry]) -> list[Record]:
        read_entries(self.path, [entry for entry in entries if entry.record is None])
        return [entry.record for entry in entries if entry.record is not None]

    def _start_index(self) -> None:
        """Brings the index up to date with the file (this store holds the writer's lock)."""
        for stale in self._indexes:
            stale.close()
        index = IndexWriter(index_path(self.path), self.path)
        index.start(self._indexed, self._unindexed, self._unindexed_problems)
        self._indexes[:] = [index]
        self._unindexed, self._unindexed_problems = [], []

    def _append(self, record_type: type, **fields: Any) -> str:
        self._open_writer()  # first: taking the lock may load records another writer added
        return self._write([record_type(id=self._new_id(), parent_id=self.tip, **fields)])

    def _new_id(self, extra: Sequence[Record] = ()) -> str:
        taken: Collection[str] = self._index.by_id
        if extra:
            taken = set(taken) | {record.id for record in extra}
        return new_record_id(taken)

    def _existing(self, record_id: str | None) -> str:
        if record_id is None:
            if self.tip is None:
                raise ValueError(f"session {self.path} has no records yet")
            return self.tip
        if record_id not in self._index.by_id:
            raise ValueError(f"no record {record_id!r} in session {self.path}")
        return record_id

    def _write(self, records: list[Record], header: SessionHeader | None = None) -> str:
        writer = self._open_writer()
        lines = [self._line(record) for record in records]
        new_header = None
        if self._contents.header is None and not self._index.in_file:
            new_header = header or SessionHeader()
            lines.insert(0, self._line(new_header))
        data = b"".join(lines)
        try:
            start = writer.write(data)  # one write: the header never lands without its first record
        except OSError as error:
            raise SessionWriteError(self.path, error) from error
        if new_header is not None:
            self._contents.header = new_header
            start += len(lines.pop(0))
        entries = []
        for record, line in zip(records, lines):
            entries.append(Entry.of(record, start, start + len(line) - 1))  # the newline is not the record's
            start += len(line)
        for entry in entries:
            self._index.add(entry)
        for index in self._indexes:
            index.add(entries, data, start - len(data))
        return records[-1].id

    def _line(self, record: Record | SessionHeader) -> bytes:
        try:
            text = record.model_dump_json()
        except PydanticSerializationError:
            # A lone surrogate (a file name os.fsdecode could not decode) is no UTF-8: it is written
            # as U+FFFD, as a reader would replace it, and the record is kept.
            text, _ = without_surrogates(json.dumps(record.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")))
        return (self._redactor.redact(text) + "\n").encode()

    def _open_writer(self) -> JournalWriter:
        if self.read_only:
            raise PermissionError(f"session {self.path} was opened read-only")
        if self._closed:
            raise ValueError(f"session {self.path} is closed")
        if self._writer is not None:
            return self._writer
        if not self._lock.held:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
            if self.path.stat().st_size != self._contents.size:
                self._load()  # another writer wrote to the file after we read it, and let go
        self._writers.append(JournalWriter(self.path, self._contents))
        self._start_index()
        return self._writers[0]


def _release(lock: SessionLock, writers: list[JournalWriter], indexes: list[IndexWriter]) -> None:
    for writer in writers:
        writer.close()
    for index in indexes:
        index.close()
    lock.release()


__all__ = ["SessionStore", "SessionWriteError"]
