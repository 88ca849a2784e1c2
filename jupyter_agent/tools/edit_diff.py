"""The diff an edit answers with, computed only around the places it replaced.

``difflib`` over a whole file costs far more than the file: a one-line change in a 20 MB file took
72 s and 8 times the file's size in memory. The replaced places are known, so only the lines
around them (with the usual three lines of context) are compared, and the hunk headers are
shifted to the file's own line numbers.
"""

from __future__ import annotations

import difflib
import re

CONTEXT = 3
_HEADER = re.compile(r"^@@ -(\d+)((?:,\d+)?) \+(\d+)((?:,\d+)?) @@$")


def occurrences(body: str, old: str) -> list[int]:
    """Where ``old`` starts in ``body``, non-overlapping from the left (as ``str.replace`` sees it)."""
    found = []
    position = body.find(old)
    while position >= 0:
        found.append(position)
        position = body.find(old, position + len(old))
    return found


def edit_diff(body: str, old: str, new: str, positions: list[int], shown: str, max_lines: int) -> str:
    """A unified diff of replacing ``old`` by ``new`` at ``positions``; stops past ``max_lines``.

    More places than ``max_lines`` can show get a note instead: a stretch of adjacent places is
    one hunk that could not be cut without misstating what follows it.
    """
    out = [f"--- a/{shown}", f"+++ b/{shown}"]
    if len(positions) > max_lines:
        return "\n".join([*out, f"[{len(positions)} places changed: too many to show; read the file to see the result.]"])
    growth = new.count("\n") - old.count("\n")
    line, counted, shift = 1, 0, 0
    for start, end, inside in _windows(body, len(old), positions):
        line += body.count("\n", counted, start)
        counted = start
        before = body[start:end]
        after = _replaced(before, start, inside, len(old), new)
        hunks = list(difflib.unified_diff(before.split("\n"), after.split("\n"), lineterm="", n=CONTEXT))[2:]
        out.extend(_shifted(text, line - 1, line - 1 + shift) for text in hunks)
        shift += growth * len(inside)
        if len(out) > max_lines:
            break
    return "\n".join(out)


def _windows(body: str, length: int, positions: list[int]) -> list[tuple[int, int, list[int]]]:
    windows: list[tuple[int, int, list[int]]] = []
    for position in positions:
        start = _lines_back(body, position, CONTEXT)
        end = _lines_forward(body, position + length, CONTEXT)
        if windows and start <= windows[-1][1] + 1:  # touching windows make one hunk, as in difflib
            first, last, inside = windows[-1]
            windows[-1] = (first, max(last, end), [*inside, position])
        else:
            windows.append((start, end, [position]))
    return windows


def _lines_back(body: str, position: int, count: int) -> int:
    newline = body.rfind("\n", 0, position)
    for _ in range(count):
        if newline < 0:
            break
        newline = body.rfind("\n", 0, newline)
    return newline + 1


def _lines_forward(body: str, position: int, count: int) -> int:
    newline = body.find("\n", position)
    for _ in range(count):
        if newline < 0:
            break
        newline = body.find("\n", newline + 1)
    return len(body) if newline < 0 else newline


def _replaced(window: str, start: int, inside: list[int], length: int, new: str) -> str:
    parts = []
    cursor = 0
    for position in inside:
        parts.append(window[cursor : position - start])
        parts.append(new)
        cursor = position - start + length
    parts.append(window[cursor:])
    return "".join(parts)


def _shifted(text: str, old_offset: int, new_offset: int) -> str:
    header = _HEADER.match(text)
    if header is None:
        return text
    old_start, old_count, new_start, new_count = header.groups()
    return f"@@ -{int(old_start) + old_offset}{old_count} +{int(new_start) + new_offset}{new_count} @@"
