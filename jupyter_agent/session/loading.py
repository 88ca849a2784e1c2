"""Loading a session file: from its index when one fits, reading records only when they are needed.

``load_session`` reads the file's bytes once. With an index that fits them (``index_file``) it
takes the records' entries from the index and parses only the lines the index does not cover (what
another writer appended); without one it parses every line (``journal``). Either way the records'
messages the index knows only by place are read later, when the model's view or the history is
asked for (``read_entries``). A big read runs with the garbage collector paused and freezes the
records it made (``long_lived``).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.long_lived import long_lived_objects
from jupyter_agent.session.branch import Entry, SessionIndex
from jupyter_agent.session.index_file import IndexContents, index_path, read_index
from jupyter_agent.session.journal import JournalContents, LoadProblem, read_journal_bytes, read_record
from jupyter_agent.session.records import HEADER_ADAPTER, SessionHeader

# Past this many records to read, reading the whole file once beats reading each line apart.
WHOLE_FILE_READ = 64
# A read of this many records (or bytes of them) pauses the collector and freezes what it made
# (``long_lived``); below, a read is quick anyway.
MANY_RECORDS = 1_000
MANY_BYTES = 256 * 1024


class StaleIndex(JupyterAgentError):
    """A line the index points to is not the record it says: the file changed since it was indexed."""


@dataclass
class LoadedSession:
    contents: JournalContents  # the header, the problems, what the writer needs (sizes, a torn tail)
    index: SessionIndex
    indexed: IndexContents | None  # the index that fitted the file, if one did
    unindexed: list[Entry] = field(default_factory=list)  # the records the index lacks (in file order)
    unindexed_problems: list[LoadProblem] = field(default_factory=list)  # the problems of their lines


def load_session(path: Path, *, use_index: bool = True, chain: bool = True) -> LoadedSession:
    """The session file at ``path``; ``chain``: compute the CRCs an index of the new entries needs
    (a reader that never writes an index skips them)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    with long_lived_objects(len(data) >= MANY_BYTES):
        indexed = read_index(index_path(path), data) if use_index and data else None
        reader = partial(read_entries, path)
        try:
            contents, entries = _entries(data, indexed, chain)
            index = SessionIndex(entries, reader)  # may read a compaction's record
        except StaleIndex:
            indexed = None
            contents, entries = _entries(data, None, chain)
            index = SessionIndex(entries, reader)
    unindexed = entries[len(indexed.entries) :] if indexed is not None else entries
    loaded = LoadedSession(contents, index, indexed, unindexed, list(contents.problems))
    if indexed is not None:
        contents.problems[:0] = indexed.problems
    # Links bridged or compactions ignored because a corrupt line took a record with it.
    for reason in index.broken_links + index.branch.problems:
        contents.problems.append(LoadProblem(0, reason))
    return loaded


def _entries(data: bytes, indexed: IndexContents | None, chain: bool) -> tuple[JournalContents, list[Entry]]:
    """The entries of the session file ``data``: the index's, then those of what it does not cover."""
    if indexed is None:
        contents = read_journal_bytes(data)
        entries = []
    else:
        covered = indexed.covered
        line = data.count(b"\n", 0, covered) + 1  # the number of the line the index ends in
        contents = read_journal_bytes(data, covered, line=line, header=file_header(data))
        if covered == len(data) and not data.endswith(b"\n"):
            contents.needs_newline = True  # the last record, indexed, lacks its newline
        entries = list(indexed.entries)
    new = [Entry.of(record, start, end) for record, (start, end) in zip(contents.records, contents.spans)]
    if chain:
        _chain_crc(data, indexed, new)
    contents.records, contents.spans = [], []  # the entries keep the records
    return contents, entries + new


def read_entries(path: Path, entries: Sequence[Entry]) -> None:
    """Reads the records of ``entries`` not read yet from the file at ``path`` (their lines, as the index knows them).

    A function of the path: the store's index holds it, and must not hold the store (a store
    dropped without ``close()`` lets its lock go when it is freed)."""
    # An entry read before (by another view of the branch: its records, then its messages) is not
    # read again: a 20 000-message session's first turn otherwise parses every line twice.
    ordered = sorted((entry for entry in entries if entry.record is None), key=lambda entry: entry.start)
    if not ordered:
        return
    try:
        with long_lived_objects(len(ordered) >= MANY_RECORDS), open(path, "rb") as file:
            data = file.read() if len(ordered) > WHOLE_FILE_READ else None
            for entry in ordered:
                if data is not None:
                    line = data[entry.start : entry.end]
                else:
                    file.seek(entry.start)
                    line = file.read(entry.end - entry.start)
                record = read_record(line) if entry.start >= 0 else None
                if record is None or record.id != entry.id or record.kind != entry.kind:
                    raise StaleIndex(entry.id)
                entry.record = record
    except OSError as error:
        raise StaleIndex(str(error)) from error


def file_header(data: bytes) -> SessionHeader | None:
    """The header on the file's first line, if it has one."""
    first = data[: data.find(b"\n")] if b"\n" in data else data
    if b'"session"' not in first:
        return None
    try:
        return HEADER_ADAPTER.validate_json(first)
    except ValueError:
        return None


def _chain_crc(data: bytes, indexed: IndexContents | None, entries: Sequence[Entry]) -> None:
    """Each entry's CRC-32 of the file up to its line's end, continuing the index's chain."""
    covered, crc = (indexed.covered, indexed.crc) if indexed is not None else (0, 0)
    for entry in entries:
        crc = zlib.crc32(data[covered : entry.end], crc)
        covered = entry.end
        entry.crc = crc


__all__ = ["LoadedSession", "StaleIndex", "WHOLE_FILE_READ", "file_header", "load_session", "read_entries"]
