"""Durability of the session file: reading what survived, appending whole lines, fsync.

Each record is one line written with a single ``write`` loop on an ``O_APPEND`` descriptor, so a
crash can only cut the line being written. Reading skips what cannot be parsed: an unterminated
last line is a write that was interrupted (a warning), a bad line elsewhere is corruption (reported,
never fatal). Before the next append the interrupted tail is cut off so it never fuses with the
new line.
"""

from __future__ import annotations

import os
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
    problems: list[LoadProblem] = field(default_factory=list)
    size: int = 0  # bytes in the file when read
    keep_bytes: int = 0  # bytes worth keeping: everything but an interrupted last line
    needs_newline: bool = False  # a complete last record lacks its newline

    def warn(self, path: Path) -> None:
        for problem in self.problems:
            where = f"line {problem.line}: " if problem.line else ""
            warnings.warn(f"{path}: {where}{problem.reason}", SessionWarning, stacklevel=4)


def read_journal(path: Path) -> JournalContents:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JournalContents()
    contents = JournalContents(size=len(data), keep_bytes=len(data))
    lines = data.split(b"\n")
    # split() leaves the bytes after the last newline as the final element ("" when terminated).
    unterminated = lines.pop()
    for number, line in enumerate(lines, start=1):
        if line.strip():
            _read_line(line, number, contents, last=number == len(lines) and not unterminated)
    if unterminated.strip():
        number = len(lines) + 1
        if _read_line(unterminated, number, contents, last=True, torn=True):
            contents.needs_newline = True
        else:
            contents.keep_bytes = len(data) - len(unterminated)
    return contents


def _read_line(line: bytes, number: int, contents: JournalContents, last: bool, torn: bool = False) -> bool:
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
            return True
    try:
        contents.records.append(RECORD_ADAPTER.validate_json(line))
        return True
    except ValidationError as error:
        if torn:
            reason = "skipped a torn last line (a write was interrupted)"
        elif last:
            reason = f"skipped an invalid last line ({_first_error(error)})"
        else:
            reason = f"skipped a corrupt line ({_first_error(error)})"
        contents.problems.append(LoadProblem(number, reason, torn=torn))
        return False


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

    def write(self, data: bytes) -> None:
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


__all__ = ["JournalContents", "JournalWriter", "LoadProblem", "SessionWarning", "read_journal"]
