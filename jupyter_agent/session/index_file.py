"""The index beside a session file, ``<session>.index``: a long session loads without reading every record.

One JSON line per record of the session file, in file order, written just after the record: its
kind and ids, where its line is (bytes ``[start, end)``), a CRC-32 of the session file up to there,
and what the active branch needs of it (a message's role and model, a usage record's numbers, a
request's model, a compaction's first kept record, a label). Lines the last full read of the file
skipped (corrupt ones) are listed too, so every load reports them.

Opening a session reads the index, checks that the session file still starts with the bytes the
index covers (the CRC of its last record), reads from the file only what the index does not cover
(what another writer appended, an older version of jupyter-agent included) and builds the branch
from the index alone; the messages are read when asked for: the model's view for the next request
at once, the rest of the history only if someone wants it.

The index is a cache. The session file alone stays the truth, in the same format, readable by any
version; an index that does not fit it (the file edited, truncated, replaced) is ignored, and the
next writer writes it again from the file.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.files import atomic_write
from jupyter_agent.session.branch import Entry
from jupyter_agent.session.journal import FILE_MODE, LoadProblem
from jupyter_agent.session.records import UsageRecord

INDEX_SUFFIX = ".index"
INDEX_FORMAT = "jupyter-agent-session-index"
INDEX_VERSION = 1
_PROBLEM = "problem"
_USAGE_NUMBERS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "spend_usd")


def index_path(session_path: Path) -> Path:
    """``analysis.agent/main.jsonl`` → ``analysis.agent/main.index``."""
    return session_path.with_suffix(INDEX_SUFFIX)


@dataclass
class IndexContents:
    """What an index says of the session file's first ``covered`` bytes."""

    entries: list[Entry] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    covered: int = 0  # the end of the last record's line (its newline excluded)
    crc: int = 0  # CRC-32 of the session file's bytes before ``covered``
    rows: int = 0  # rows in the index file that fit the session file


def read_index(path: Path, data: bytes) -> IndexContents | None:
    """The index of the session file whose bytes are ``data``; ``None`` when there is none that fits."""
    try:
        text = path.read_bytes()
    except OSError:
        return None
    lines = text.split(b"\n")
    try:
        header = json.loads(lines[0])
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("format") != INDEX_FORMAT or header.get("version") != INDEX_VERSION:
        return None
    try:
        return _fitting(_rows(lines[1:]), data)
    except (TypeError, ValueError, IndexError):
        return None  # a row this version cannot read: the file is read instead


def _fitting(rows: list[list], data: bytes) -> IndexContents | None:
    # The last record row the file holds (a reader may see an index a moment ahead of the file).
    last = len(rows) - 1
    while last >= 0 and (rows[last][0] == _PROBLEM or int(rows[last][2]) > len(data)):
        last -= 1
    if last < 0:
        return None
    covered, crc = int(rows[last][2]), int(rows[last][3])
    if zlib.crc32(data[:covered]) != crc:
        return None
    contents = IndexContents(covered=covered, crc=crc, rows=last + 1)
    for row in rows[: last + 1]:
        if row[0] == _PROBLEM:
            contents.problems.append(LoadProblem(int(row[1]), str(row[2])))
        else:
            contents.entries.append(_entry(row))
    return contents


def _rows(lines: Sequence[bytes]) -> list[list]:
    """The rows of an index, up to its first line that is not one (a torn last line)."""
    body = [line for line in lines if line.strip()]
    try:
        rows = json.loads(b"[" + b",".join(body) + b"]")  # one parse: a long session has tens of thousands
    except ValueError:
        rows = []
        for line in body:
            try:
                rows.append(json.loads(line))
            except ValueError:
                break
    return [row for row in rows if isinstance(row, list) and len(row) >= 3 and isinstance(row[0], str)]


def _entry(row: list) -> Entry:
    kind, start, end, crc, record_id, parent_id, ts, *facts = row
    if parent_id is not None and not isinstance(parent_id, str):
        raise ValueError("parent_id")
    entry = Entry(str(kind), str(record_id), parent_id, int(ts), start=int(start), end=int(end), crc=int(crc))
    if kind == "message":
        entry.role, entry.model = facts[0], facts[1]
    elif kind == "usage":
        entry.model = facts[0]
        numbers: dict[str, object] = dict(zip(_USAGE_NUMBERS, (*map(int, facts[2:6]), float(facts[6]))))
        # The record's numbers, which is all the branch's totals read (the line is read when asked for).
        entry.usage = UsageRecord.model_construct(
            None, id=entry.id, parent_id=parent_id, ts=entry.ts, purpose=str(facts[1]), **numbers
        )
    elif kind == "request":
        entry.model = facts[0]
    elif kind == "compaction":
        entry.target = str(facts[0])
    elif kind == "label":
        entry.target, entry.label = str(facts[0]), str(facts[1])
    return entry


def _row(entry: Entry, crc: int) -> list:
    row: list = [entry.kind, entry.start, entry.end, crc, entry.id, entry.parent_id, entry.ts]
    kind = entry.kind
    if kind == "message":
        row += [entry.role, entry.model]
    elif kind == "usage":
        usage = entry.usage or UsageRecord(id=entry.id)
        row += [entry.model, usage.purpose, *(getattr(usage, name) for name in _USAGE_NUMBERS)]
    elif kind == "request":
        row += [entry.model]
    elif kind == "compaction":
        row += [entry.target]
    elif kind == "label":
        row += [entry.target, entry.label]
    return row


def _line(row: list) -> bytes:
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class IndexWriter:
    """Keeps the index of a session file that this process writes (it holds the writer's lock).

    ``start`` writes the index afresh (or continues the one that fits); ``add`` appends the rows of
    records just written. The CRC runs over every byte of the session file, so each row vouches for
    the whole file up to its record. A failure to write the index (a full disk) only stops the index:
    the session file is what counts, and the next load reads what the index lacks from it.
    """

    def __init__(self, path: Path, session_path: Path) -> None:
        self.path = path
        self.session_path = session_path
        self._fd: int | None = None
        self._covered = 0
        self._crc = 0
        self._broken = False

    def start(self, contents: IndexContents | None, entries: Iterable[Entry], problems: Sequence[LoadProblem]) -> None:
        """Writes the rows of ``entries`` (the records the index lacks, each with its ``crc``, and the
        ``problems`` of the lines among them): appended to the index that fits (``contents``), or as
        a new index."""
        fresh = contents is None
        covered, crc = (0, 0) if contents is None else (contents.covered, contents.crc)
        lines = [_line(row) for row in problems_rows(problems)]
        for entry in entries:
            if entry.end < 0 or entry.crc < 0:
                continue
            covered, crc = entry.end, entry.crc
            lines.append(_line(_row(entry, crc)))
        self._covered, self._crc = covered, crc
        try:
            if fresh:
                header = json.dumps({"format": INDEX_FORMAT, "version": INDEX_VERSION}).encode() + b"\n"
                atomic_write(self.path, header + b"".join(lines), mode=FILE_MODE, durable=False)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            else:
                assert contents is not None
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
                self._cut_to(contents)
                self._write(b"".join(lines))
        except OSError:
            self._stop()

    def add(self, entries: Sequence[Entry], written: bytes, start: int) -> None:
        """The rows of ``entries``, whose lines are ``written``, appended to the session file at ``start``."""
        if self._fd is None or self._broken:
            return
        crc, covered = self._crc, self._covered
        if start > covered:
            gap = b"\n" if start == covered + 1 else self._read(covered, start)
            if gap is None:
                self._stop()
                return
            crc = zlib.crc32(gap, crc)
            covered = start
        rows = []
        for entry in entries:
            crc = zlib.crc32(written[covered - start : entry.end - start], crc)
            covered = entry.end
            entry.crc = crc
            rows.append(_line(_row(entry, crc)))
        try:
            self._write(b"".join(rows))
        except OSError:
            self._stop()
            return
        self._crc, self._covered = crc, covered

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _cut_to(self, contents: IndexContents) -> None:
        """Drops the rows after the last one that fits (a torn row, rows of bytes that are gone)."""
        assert self._fd is not None
        text = self.path.read_bytes()
        if text.endswith(b"\n") and text.count(b"\n") == contents.rows + 1:
            return  # the header and every row fit: nothing to cut (a long session's 20 000 rows not walked)
        keep, seen = 0, -1
        for offset, _ in _line_offsets(text):
            if seen >= contents.rows:
                break
            keep = offset
            seen += 1
        if seen >= contents.rows:
            os.ftruncate(self._fd, keep)

    def _write(self, data: bytes) -> None:
        assert self._fd is not None
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def _read(self, start: int, end: int) -> bytes | None:
        try:
            with open(self.session_path, "rb") as file:
                file.seek(start)
                data = file.read(end - start)
        except OSError:
            return None
        return data if len(data) == end - start else None

    def _stop(self) -> None:
        self._broken = True
        self.close()


def problems_rows(problems: Sequence[LoadProblem]) -> list[list]:
    """Rows for the lines a full read skipped (not a torn last line: the next writer cuts it)."""
    return [[_PROBLEM, problem.line, problem.reason] for problem in problems if not problem.torn and problem.line]


def _line_offsets(text: bytes) -> Iterable[tuple[int, bytes]]:
    """(offset just past each line, the line) for every terminated line of ``text``."""
    offset = 0
    while True:
        end = text.find(b"\n", offset)
        if end < 0:
            return
        yield end + 1, text[offset:end]
        offset = end + 1


__all__ = ["INDEX_SUFFIX", "IndexContents", "IndexWriter", "index_path", "problems_rows", "read_index"]
