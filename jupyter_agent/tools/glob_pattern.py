"""Glob patterns (``*``, ``**``, ``?``, ``[abc]``, ``{a,b}``) compiled to regular expressions.

Paths are matched with forward slashes. ``*`` and ``?`` stay inside one path segment; ``**`` as a
whole segment spans any number of them. As in the shell, wildcards do not match a leading dot:
hidden files are found only by patterns that spell the dot (``.env``, ``**/.*``).
"""

from __future__ import annotations

import re
from functools import lru_cache

WILDCARDS = "*?[{"

_SEGMENT = r"(?!\.)[^/]*"


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern, True) + r"\Z", re.DOTALL)


def has_wildcard(text: str) -> bool:
    return any(char in text for char in WILDCARDS)


def split_literal_prefix(pattern: str) -> tuple[list[str], str]:
    """The leading segments without wildcards (a folder to start the walk in) and the rest."""
    segments = pattern.split("/")
    prefix: list[str] = []
    while len(segments) > 1 and not has_wildcard(segments[0]):
        prefix.append(segments.pop(0))
    return prefix, "/".join(segments)


def _translate(pattern: str, segment_start: bool) -> str:
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        at_start = segment_start
        segment_start = False
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole_segment = at_start and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole_segment:
                if j < n:
                    # "**/" is zero or more whole segments.
                    out.append(rf"(?:{_SEGMENT}/)*")
                    j += 1
                    segment_start = True
                else:
                    out.append(rf"{_SEGMENT}(?:/{_SEGMENT})*")
            else:
                out.append(_SEGMENT if at_start else "[^/]*")
            i = j
        elif char == "?":
            out.append(r"(?!\.)[^/]" if at_start else "[^/]")
            i += 1
        elif char == "[":
            end = _class_end(pattern, i)
            if end < 0:
                out.append(re.escape(char))
                i += 1
            else:
                body = pattern[i + 1 : end]
                negate = body[:1] in ("!", "^")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"[{'^/' if negate else ''}{body}]")
                i = end + 1
        elif char == "{":
            end, alternatives = _braces(pattern, i)
            if end < 0:
                out.append(re.escape(char))
                i += 1
            else:
                out.append("(?:" + "|".join(_translate(alt, at_start) for alt in alternatives) + ")")
                i = end + 1
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            segment_start = char == "/"
            i += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a leading "]" is a member, as in the shell
    while i < len(pattern) and pattern[i] != "]":
        if pattern[i] == "/":
            return -1
        i += 1
    return i if i < len(pattern) else -1


def _braces(pattern: str, start: int) -> tuple[int, list[str]]:
    depth = 0
    alternatives: list[str] = []
    current = start + 1
    i = start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                alternatives.append(pattern[current:i])
                return i, alternatives
        elif char == "," and depth == 1:
            alternatives.append(pattern[current:i])
            current = i + 1
        i += 1
    return -1, []
