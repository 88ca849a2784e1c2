"""Reading a saved ``.ipynb`` quickly: its cells, with or without the payloads of their outputs.

A notebook with plots and tables is mostly the payloads of its outputs: base64 images, HTML
tables, LaTeX, scripts. An outline needs none of them, only which kinds are there, and the text a
reader sees (``text/plain``, ``text/markdown``, streams, errors). So ``notebook_cells`` reads
without payloads by default: one pass over the mapped file finds each output's ``data`` (a byte
search) and skips every long value but the text ones where it lies, and only the rest is read
and parsed: a 2 000-cell notebook of 50 MB becomes the few MB of its text. An image keeps the head
of its base64, which holds its width and height.
``payloads=True`` parses everything (a cell read in full attaches its images).

What was read is remembered by the file's size and modification time, so the outline in every
turn's context costs a look at the file's ``stat`` until the notebook is saved again.
"""

from __future__ import annotations

import json
import mmap
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jupyter_agent.features.frontend import CellJson

# A value in an output's ``data`` is left out of a read without payloads when it is longer than
# this many bytes (a short one costs nothing to parse); its key stays, its value becomes "…".
PAYLOAD_BYTES = 256
# The kinds of output data a reader of the outline sees as text (``cells.output_text``).
TEXT_KINDS = (b"text/plain", b"text/markdown")
OMITTED = "…"
# An image keeps the head of its base64, where its size is (the schema policy's outline names it):
# a PNG's or GIF's in its first bytes, a JPEG's frame header after its metadata, within a few KB.
IMAGE_HEADS = {b"image/png": 64, b"image/gif": 64, b"image/jpeg": 8_192}

_DATA = b'"data"'
_COLON = re.compile(rb"\s*:\s*")
_SPACE = re.compile(rb"\s*")
# A list of strings ends at the first unescaped quote that a closing bracket follows.
_LIST_END = re.compile(rb'"\s*\]')
_EMPTY_LIST = re.compile(rb"\[\s*\]")
_OMITTED = json.dumps(OMITTED).encode()

# Reads without payloads, by path: (the file's size and modification time, its cells). A read with
# payloads is not kept: it holds every image of the notebook.
_READ: dict[str, tuple[tuple[int, int], list[CellJson]]] = {}


def notebook_cells(path: Path, *, payloads: bool = False) -> list[CellJson] | None:
    """The cells of the notebook at ``path`` (nbformat 4 dicts, shared with later reads: do not
    change them); ``None`` when it cannot be read as a notebook."""
    try:
        status = path.stat()
    except OSError:
        return None
    key, version = str(path), (status.st_size, status.st_mtime_ns)
    known = _READ.get(key)
    if not payloads and known is not None and known[0] == version:
        return known[1]
    try:
        notebook = json.loads(path.read_bytes() if payloads else _read_without_payloads(path))
    except (OSError, ValueError):
        return None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    cells = [cell for cell in cells if isinstance(cell, dict)] if isinstance(cells, list) else []
    if not payloads:
        _READ[key] = (version, cells)
    return cells


def _read_without_payloads(path: Path) -> bytes:
    with open(path, "rb") as file:
        try:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            return b"{}"
        with mapped:  # the payloads are skipped where they lie: never copied into memory
            return without_payloads(mapped)


def without_payloads(data: bytes | mmap.mmap) -> bytes:
    """``data`` (an ``.ipynb``'s bytes) with each long non-text value of an output's ``data`` as "…".

    Only what is certainly such a value is replaced: a member of the object that is the value of a
    ``"data"`` key. ``"data"`` can only be a key where a colon follows it outside a string (a quote
    inside a JSON string is escaped), so nothing else matches. A value is skipped with byte searches
    for its end (a 100 KB base64 image at memory speed); a list of lines is checked by parsing it.
    """
    kept: list[bytes] = []
    copied = position = 0
    size = len(data)
    while True:
        position = data.find(_DATA, position)
        if position < 0:
            break
        position = _after_colon(data, position + len(_DATA))
        if position < 0 or position >= size or data[position] != ord("{"):
            continue
        position += 1
        while True:  # the members of this data object
            position = _SPACE.match(data, position).end()  # type: ignore[union-attr]  # \s* always matches
            if position >= size or data[position] != ord('"'):
                break
            key_end = _string_end(data, position)
            start = _after_colon(data, key_end) if key_end > 0 else -1
            if start < 0 or start >= size:
                break
            end = _value_end(data, start)
            if end < 0:
                break  # an object or a number: the rest of this one is parsed as it is
            kind = data[position + 1 : key_end - 1]
            if end - start > PAYLOAD_BYTES and kind not in TEXT_KINDS:
                kept += (data[copied:start], _image_head(data, start, IMAGE_HEADS.get(kind, 0)) or _OMITTED)
                copied = end
            position = _SPACE.match(data, end).end()  # type: ignore[union-attr]
            if position >= size or data[position] != ord(","):
                break
            position += 1
    kept.append(data[copied:])
    return b"".join(kept)


def _image_head(data: bytes | mmap.mmap, start: int, chars: int) -> bytes:
    """The first ``chars`` characters of the base64 string at ``start``, as a JSON string (b"" if none)."""
    if not chars or data[start] != ord('"'):
        return b""
    head = data[start + 1 : start + 1 + chars]
    for stop in (b'"', b"\\"):  # base64 has neither; a line break in it is written as an escape
        found = head.find(stop)
        head = head if found < 0 else head[:found]
    head = head[: len(head) - len(head) % 4]  # whole base64 quads: the head decodes as it is
    return b'"' + head + b'"' if head else b""


def _after_colon(data: bytes | mmap.mmap, position: int) -> int:
    """Where a value starts after ``position`` (just past a key), or -1 if no colon follows."""
    match = _COLON.match(data, position)
    return match.end() if match is not None and b":" in match.group(0) else -1


def _value_end(data: bytes | mmap.mmap, start: int) -> int:
    """Just past the string or list of strings at ``start``; -1 for any other value."""
    first = data[start]
    if first == ord('"'):
        return _string_end(data, start)
    if first == ord("["):  # nbformat keeps a multi-line value as a list of its lines
        return _lines_end(data, start)
    return -1


def _lines_end(data: bytes | mmap.mmap, start: int) -> int:
    """Just past the list (of lines) at ``start``; -1 if its end is not where its last line ends."""
    empty = _EMPTY_LIST.match(data, start)
    if empty is not None:
        return int(empty.end())
    position = start
    while True:
        found = _LIST_END.search(data, position)
        if found is None:
            return -1
        if not _escaped(data, found.start()):
            break
        position = found.start() + 1
    end = int(found.end())
    try:
        json.loads(data[start:end])  # a whole list, or that quote opened a string: not ours to cut
    except ValueError:
        return -1
    return end


def _string_end(data: bytes | mmap.mmap, start: int) -> int:
    """Just past the JSON string whose opening quote is at ``start``; -1 if it never closes."""
    position = start + 1
    while True:
        quote = data.find(b'"', position)
        if quote < 0:
            return -1
        if not _escaped(data, quote):
            return quote + 1
        position = quote + 1


def _escaped(data: bytes | mmap.mmap, quote: int) -> bool:
    """Whether the quote at ``quote`` is escaped (an odd run of backslashes before it)."""
    backslash = quote - 1
    while data[backslash] == ord("\\"):
        backslash -= 1
    return (quote - 1 - backslash) % 2 == 1


def forget_reads() -> None:
    """Drops what was remembered of every notebook (tests; a notebook is read afresh anyway once saved)."""
    _READ.clear()


__all__ = ["IMAGE_HEADS", "OMITTED", "PAYLOAD_BYTES", "forget_reads", "notebook_cells", "without_payloads"]
