"""Glob patterns (``*``, ``**``, ``?``, ``[abc]``, ``{a,b}``) compiled to regular expressions that
match in polynomial time, whatever the pattern.

Paths are matched with forward slashes. ``*`` and ``?`` stay inside one path segment; ``**`` as a
whole segment spans any number of them. As in the shell, wildcards do not match a leading dot:
hidden files are found only by patterns that spell the dot (``.env``, ``**/.*``).

A naive translation (``*a*a*a…`` to ``[^/]*a[^/]*a…``) backtracks exponentially on a name that
almost matches, and the regular expression engine holds the GIL while it does, freezing the kernel.
Here every wildcard but the last of its kind commits to the earliest place where the fixed text
after it matches, inside an atomic group, as ``fnmatch`` does: the earliest place is always a right
one, because a wildcard can absorb whatever a later choice would have skipped. The same holds one
level up for ``**`` and the fixed segments that follow it. Braces are expanded first (a bounded
number of alternatives), so no alternation sits inside a committed group.
"""

from __future__ import annotations

import re
from functools import lru_cache

from jupyter_agent.tools.errors import ToolError

WILDCARDS = "*?[{"
MAX_ALTERNATIVES = 256

# One path segment that a wildcard may stand for: any name but a hidden one.
_SEGMENT = r"(?!\.)[^/]*"


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    alternatives = dict.fromkeys(expand_braces(pattern))  # ordered, without repeats
    body = "|".join(_translate_path(alternative) + r"\Z" for alternative in alternatives)
    return re.compile(f"(?:{body})", re.DOTALL)


def has_wildcard(text: str) -> bool:
    return any(char in text for char in WILDCARDS)


def split_literal_prefix(pattern: str) -> tuple[list[str], str]:
    """The leading segments without wildcards (a folder to start the walk in) and the rest."""
    segments = pattern.split("/")
    prefix: list[str] = []
    while len(segments) > 1 and not has_wildcard(segments[0]):
        prefix.append(segments.pop(0))
    return prefix, "/".join(segments)


def expand_braces(pattern: str) -> list[str]:
    """``a{b,c}d`` as ``["abd", "acd"]``; an unmatched ``{`` stays a literal (escaped) brace."""
    expanded = _expand(pattern)
    if len(expanded) > MAX_ALTERNATIVES:
        raise ToolError(
            f"The pattern {pattern!r} expands to more than {MAX_ALTERNATIVES} alternatives; "
            "use fewer {…} groups or run several searches."
        )
    return expanded


def _expand(pattern: str) -> list[str]:
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            end, alternatives = _braces(pattern, i)
            if end < 0:
                pattern = pattern[:i] + "\\" + pattern[i:]
                i += 2
                continue
            prefix, suffixes = pattern[:i], _expand(pattern[end + 1 :])
            results: list[str] = []
            for alternative in alternatives:
                for middle in _expand(alternative):
                    results.extend(prefix + middle + suffix for suffix in suffixes)
                    if len(results) > MAX_ALTERNATIVES:
                        return results
            return results
        i += 1
    return [pattern]


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


def _translate_path(pattern: str) -> str:
    """A brace-free pattern: fixed segments, and ``**`` runs each followed by a block of them."""
    segments: list[str] = []
    for segment in pattern.split("/"):
        if not (segment == "**" and segments and segments[-1] == "**"):
            segments.append(segment)
    first_star = segments.index("**") if "**" in segments else len(segments)
    out = "/".join(_translate_segment(segment) for segment in segments[:first_star])
    rest = segments[first_star:]
    separator = "/" if first_star else ""
    while rest:
        rest.pop(0)  # the "**"
        next_star = rest.index("**") if "**" in rest else len(rest)
        block, rest = rest[:next_star], rest[next_star:]
        fixed = "/".join(_translate_segment(segment) for segment in block)
        if not block:
            out += separator + rf"{_SEGMENT}(?:/{_SEGMENT})*"
        elif not rest:
            out += separator + rf"(?:{_SEGMENT}/)*" + fixed
        else:
            # The earliest segments where the block matches; the slash closes its last segment.
            out += separator + rf"(?>(?:{_SEGMENT}/)*?{fixed}/)"
            separator = ""
            continue
        separator = "/"
    return out


def _translate_segment(segment: str) -> str:
    """One segment: fixed-width chunks between ``*``s; each middle chunk commits to its earliest match."""
    chunks: list[list[str]] = [[]]
    starts_with_wildcard = segment[:1] in ("*", "?")
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            while i < len(segment) and segment[i] == "*":
                i += 1
            chunks.append([])
            continue
        if char == "?":
            chunks[-1].append("[^/]")
            i += 1
        elif char == "[" and (end := _class_end(segment, i)) > 0:
            body = segment[i + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = body.replace("\\", "\\\\").replace("[", "\\[")
            chunks[-1].append(f"[{'^/' if negate else ''}{body}]")
            i = end + 1
        elif char == "\\" and i + 1 < len(segment):
            chunks[-1].append(re.escape(segment[i + 1]))
            i += 2
        else:
            chunks[-1].append(re.escape(char))
            i += 1
    texts = ["".join(chunk) for chunk in chunks]
    out = (r"(?!\.)" if starts_with_wildcard else "") + texts[0]
    if len(texts) > 1:
        out += "".join(rf"(?>[^/]*?{middle})" for middle in texts[1:-1]) + "[^/]*" + texts[-1]
    return out


def _class_end(segment: str, start: int) -> int:
    i = start + 1
    if i < len(segment) and segment[i] in "!^":
        i += 1
    if i < len(segment) and segment[i] == "]":
        i += 1  # a leading "]" is a member, as in the shell
    while i < len(segment) and segment[i] != "]":
        i += 1
    return i if i < len(segment) else -1
