"""Durability of the session file: reading what survived, appending whole lines, fsync.

Each record is one line written with a single ``write`` loop on an ``O_APPEND`` descriptor, so a
crash can only cut the line being written. Reading skips what cannot be parsed: an unterminated
last line is a write that was interrupted (a warning), a bad line elsewhere is corruption (reported,
never fatal). A line that is whole but holds characters that are not text (a byte that is not
UTF-8, a lone surrogate) keeps its record with only those characters replaced by U+FFFD (a
warning too). Before the next append the interrupted tail is cut off so it never fuses with the
new line.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from jupyter_agent.session.records import (
    HEADER_ADAPTER,
    RECORD_ADAPTER,
    SESSION_VERSION,
    Record,
    SessionHeader,
)

# Transcripts may hold private data: only the owner reads them.
FILE_MODE = 0o600
_SURROGATE = re.compile("[\ud800-\udfff]")


class SessionWarning(UserWarning):
    """A session file had a torn or corrupt line that was skipped."""


@dataclass(frozen=True)
class LoadProblem:
    line: int  # 1-based line number in the file; 0 when no single line is at fault
    reason: str
    torn: bool = False  # the unterminated last line: an interrupted write


@dataclass
class JournalContents:
    header: SessionHeader | None = None
    records: list[Record] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # each record's line: (start, end) bytes, newline excluded
    problems: list[LoadProblem] = field(default_factory=list)
    size: int = 0  # bytes in the file when read
    keep_bytes: int = 0  # bytes worth keeping: everything but an interrupted last line
    needs_newline: bool = False  # a complete last record lacks its newline
    lines: int = 0  # lines read (the number of the last one)

    def warn(self, path: Path) -> None:
        for problem in self.problems:
            where = f"line {problem.line}: " if problem.line else ""
            warnings.warn(f"{path}: {where}{problem.reason}", SessionWarning, stacklevel=4)


def read_journal(path: Path) -> JournalContents:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JournalContents()
    return read_journal_bytes(data)


def read_journal_bytes(data: bytes, start: int = 0, *, line: int = 1, header: SessionHeader | None = None) -> JournalContents:
    """The journal in ``data`` (a session file's bytes) from byte ``start`` on, the first line there
    being number ``line``; ``header``: the file's header, read before ``start``."""
    contents = JournalContents(header=header, size=len(data), keep_bytes=len(data))
    lines = data[start:].split(b"\n")
    # split() leaves the bytes after the last newline as the final element ("" when terminated).
    unterminated = lines.pop()
    offset = start
    last_number = line + len(lines) - 1
    for number, text in enumerate(lines, start=line):
        if text.strip() and _read_line(text, number, contents, last=number == last_number and not unterminated):
            contents.spans.append((offset, offset + len(text)))
        offset += len(text) + 1
    contents.lines = last_number
    if unterminated.strip():
        number = last_number + 1
        contents.lines = number
        if _read_line(unterminated, number, contents, last=True, torn=True):
            contents.needs_newline = True
            contents.spans.append((offset, offset + len(unterminated)))
        else:
            contents.keep_bytes = len(data) - len(unterminated)
    if len(contents.spans) > len(contents.records):
        contents.spans.pop(0)  # the header's line
    return contents


# What ``read_record`` tells the line reader: the file's header is behind us (made once: a header
# makes an id and a timestamp, thousands of times over for a long session).
_READ_ALREADY = SessionHeader(session_id="", created=0)


def read_record(line: bytes) -> Record | None:
    """The record on one line of a session file, read as ``read_journal`` reads it (bad characters
    replaced); ``None`` when the line holds none."""
    try:
        return RECORD_ADAPTER.validate_json(line)  # nearly every line: a long session reads thousands
    except ValidationError:
        pass
    contents = JournalContents(header=_READ_ALREADY)  # a header read already: the line is a record
    _read_line(line, 1, contents, last=False)
    return contents.records[0] if contents.records else None


def _read_line(line: bytes, number: int, contents: JournalContents, last: bool, torn: bool = False) -> bool:
    error = _accept(line, number, contents)
    if error is None:
        return True
    repaired, replaced = with_bad_characters_replaced(line)
    if replaced and _accept(repaired, number, contents) is None:
        were = "character that was" if replaced == 1 else "characters that were"
        contents.problems.append(LoadProblem(number, f"replaced {replaced} {were} not valid text (U+FFFD)"))
        return True
    if torn:
        reason = "skipped a torn last line (a write was interrupted)"
    elif last:
        reason = f"skipped an invalid last line ({_first_error(error)})"
    else:
        reason = f"skipped a corrupt line ({_first_error(error)})"
    contents.problems.append(LoadProblem(number, reason, torn=torn))
    return False


def _accept(line: bytes, number: int, contents: JournalContents) -> ValidationError | None:
    """Adds the line's header or record to ``contents``; the validation error when it is neither."""
    if contents.header is None and not contents.records and b'"session"' in line:
        try:
            contents.header = HEADER_ADAPTER.validate_json(line)
        except ValidationError:
            pass
        else:
            if contents.header.version > SESSION_VERSION:
                version = contents.header.version
                reason = f"written by format version {version}: reading what version {SESSION_VERSION} knows"
                contents.problems.append(LoadProblem(number, reason))
            return None
    try:
        contents.records.append(RECORD_ADAPTER.validate_json(line))
    except ValidationError as error:
        return error
    return None


_REPLACEMENT = "\ufffd"
_REPLACEMENT_BYTES = _REPLACEMENT.encode()


def with_bad_characters_replaced(line: bytes) -> tuple[bytes, int]:
    """The JSON line with every byte that is not UTF-8 and every lone surrogate as U+FFFD, and how
    many were replaced; ``(line, 0)`` when it is not JSON even so (a torn or corrupt line)."""
    text = line.decode("utf-8", errors="replace")
    replaced = text.count(_REPLACEMENT) - line.count(_REPLACEMENT_BYTES)
    try:
        # The standard parser takes lone surrogate escapes (pydantic's refuses them): parse, clean, write again.
        data = json.loads(text)
        counter = [0]
        cleaned = _without_surrogates(data, counter)
    except (ValueError, RecursionError):
        return line, 0
    replaced += counter[0]
    if not replaced:
        return line, 0
    return json.dumps(cleaned, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), replaced


def without_surrogates(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate (half of a UTF-16 pair, not text) as U+FFFD, and how many."""
    found = len(_SURROGATE.findall(text))
    return (_SURROGATE.sub(_REPLACEMENT, text), found) if found else (text, 0)


def _without_surrogates(value: object, counter: list[int]) -> object:
    if isinstance(value, str):
        cleaned, found = without_surrogates(value)
        counter[0] += found
        return cleaned
    if isinstance(value, list):
        return [_without_surrogates(item, counter) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(key, counter): _without_surrogates(item, counter) for key, item in value.items()}
    return value


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    location = ".".join(str(part) for part in first.get("loc", ()))
    return f"{location}: {first['msg']}" if location else first["msg"]


class JournalWriter:
    """An append-only descriptor on the session file; ``sync`` makes what was written durable."""

    def __init__(self, path: Path, contents: JournalContents):
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        size = os.fstat(self._fd).st_size
        if size == 0:
            _sync_directory(path.parent)  # a new file (the writer's lock may have just created it)
        if contents.keep_bytes < size == contents.size:
            # Only the interrupted tail we read is cut; a file that changed since is left alone.
            os.ftruncate(self._fd, contents.keep_bytes)
        if contents.needs_newline and size == contents.size:
            self.write(b"\n")

    def write(self, data: bytes) -> int:
        """Appends ``data``; returns the offset it starts at."""
        start = os.fstat(self._fd).st_size
        view = memoryview(data)
        try:
            while view:
                # os.write may write less than asked (signals, full pipes): continue with the rest.
                written = os.write(self._fd, view)
                view = view[written:]
        except BaseException:
            # A failed write (disk full, interrupt) must not leave half a line for the next to fuse with.
            os.ftruncate(self._fd, start)
            raise
        return start

    def sync(self) -> None:
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None  # type: ignore[assignment]


def _sync_directory(folder: Path) -> None:
    # A new file survives a power loss only once its directory entry is on disk too.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = [
    "JournalContents",
    "JournalWriter",
    "LoadProblem",
    "SessionWarning",
    "read_journal",
    "read_journal_bytes",
    "read_record",
    "with_bad_characters_replaced",
    "without_surrogates",
]
