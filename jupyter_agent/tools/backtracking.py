"""Whether a regular expression can backtrack catastrophically: a repeat around a repeat or an
alternation, as in ``(a+)+``, ``(a|aa)*`` or ``(\\w+\\s?)*``.

Only such patterns pay for the engine's per-call time limit, which doubles the cost of a search
over many small files. Any other pattern is at worst polynomial, and the search process is killed
by its own time limit anyway.
"""

from __future__ import annotations

from typing import Any

try:  # the standard library's parser: private, but stable from 3.11 on
    from re import _parser as parser  # type: ignore[attr-defined]
    from re._constants import BRANCH, MAX_REPEAT, MIN_REPEAT

    _REPEATS = {MAX_REPEAT, MIN_REPEAT}  # a possessive repeat never backtracks
except ImportError:  # pragma: no cover - a future Python that moved it: assume every pattern may
    parser = None


def may_backtrack(pattern: str) -> bool:
    """True when in doubt (a pattern the standard parser does not know, e.g. ``\\p{L}``)."""
    if parser is None:
        return True
    try:
        tree = parser.parse(pattern)
    except Exception:
        return True  # syntax only the regex engine knows: be careful
    return _nested(list(tree), inside_repeat=False)


def _nested(items: list[tuple[Any, Any]], inside_repeat: bool) -> bool:
    for op, value in items:
        if op in _REPEATS:
            low, high, body = value
            if high != 1 and inside_repeat:
                return True
            if _nested(list(body), inside_repeat or high != 1):
                return True
        elif op is BRANCH:
            if inside_repeat:
                return True
            if any(_nested(list(branch), inside_repeat) for branch in value[1]):
                return True
        elif isinstance(value, tuple):
            for part in value:
                if hasattr(part, "data") or isinstance(part, list):
                    if _nested(list(part), inside_repeat):
                        return True
    return False
