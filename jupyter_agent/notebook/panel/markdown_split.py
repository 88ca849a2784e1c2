"""Where a growing Markdown source can be cut so its start is frozen and never resent.

Every update of an HTML widget resends its whole value, so the transcript keeps only the tail
of the text in a live widget. Cuts fall on block boundaries when there are any; a single block
that grows too long (a big code fence, list, table, quote or paragraph) is cut inside, with the
markup needed to render both halves on their own (a fence closed and reopened, a table header
repeated) and a flag so the stylesheet can join the seam.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jupyter_agent.notebook.panel.markdown import FENCE_OPEN, HEADING, ITEM, RULE, TABLE_DELIMITER

_SENTENCE_END = re.compile(r"[.!?:;)]\s+(?=\S)|\n(?=\S)")
_SPACE = re.compile(r"\s+(?=\S)")


@dataclass(frozen=True)
class Cut:
    at: int  # source[:at] is frozen
    close: str = ""  # appended to the frozen part when it renders (closes an open fence)
    reopen: str = ""  # prepended to the rest when it renders (reopens the fence, table header)
    # "" at a block boundary; "block" when one block is split (the pieces are styled to look like
    # one block); "text" when a paragraph is split (the pieces flow as one paragraph).
    seam: str = ""


@dataclass
class _Block:
    start: int
    kind: str  # "paragraph" | "fence" | "list" | "table" | "quote" | "heading"
    first_line: str
    line_starts: list[int]


def find_cut(source: str, limit: int, *, keep: int = 0) -> Cut | None:
    """The furthest useful cut of `source` once it reached `limit` characters, else None.

    `keep` is the length of a reopen prefix the source starts with; cuts fall after it so each
    cut makes progress. A single unbreakable run longer than 4 × limit is cut anyway.
    """
    if len(source) < limit:
        return None
    boundaries, last = _scan(source)
    candidates = [Cut(at) for at in boundaries if at > keep]
    if last is not None:
        candidates += [cut for cut in _inside_cuts(source, last) if cut.at > keep]
    if candidates:
        return max(candidates, key=lambda cut: cut.at)
    # Why 4×: a block longer than that with no safe point (a huge word) costs more resent
    # bytes than an ugly seam.
    if len(source) >= 4 * limit:
        return Cut(len(source), seam="text")
    return None


def _scan(source: str) -> tuple[list[int], _Block | None]:
    """Block boundaries (offsets where a top-level block starts) and the last block."""
    boundaries: list[int] = []
    last: _Block | None = None
    fence: re.Pattern[str] | None = None
    after_blank = False
    offset = 0
    lines = source.split("\n")
    for index, line in enumerate(lines):
        complete = index < len(lines) - 1  # the last line may still be growing
        start = offset
        offset += len(line) + 1
        if fence is not None:
            assert last is not None  # a fence only opens inside a block
            last.line_starts.append(start)
            if complete and fence.match(line):
                fence = None
                boundaries.append(offset)
                last = None
            continue
        if not line.strip():
            after_blank = True
            continue
        flush_left = not line.startswith(" ")
        if last is None or (after_blank and flush_left) or (flush_left and _interrupts(line, last)):
            if start > 0 and flush_left:
                boundaries.append(start)
            last = _Block(start, _kind(line, lines, index), line, [])
            if match := FENCE_OPEN.match(line):
                marker = match.group(2)
                fence = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        else:
            last.line_starts.append(start)
        after_blank = False
    if source.endswith("\n\n") and fence is None:
        boundaries.append(len(source))
    return boundaries, last


def _interrupts(line: str, block: _Block) -> bool:
    """Whether a line starts a new block without a blank line before it."""
    if block.kind == "heading" or FENCE_OPEN.match(line) or HEADING.match(line) or RULE.match(line):
        return True
    return block.kind == "paragraph" and (ITEM.match(line) is not None or line.startswith(">"))


def _kind(line: str, lines: list[str], index: int) -> str:
    if FENCE_OPEN.match(line):
        return "fence"
    if HEADING.match(line) or RULE.match(line):
        return "heading"
    if line.lstrip().startswith(">"):
        return "quote"
    if ITEM.match(line):
        return "list"
    if "|" in line and index + 1 < len(lines) and TABLE_DELIMITER.match(lines[index + 1]):
        return "table"
    return "paragraph"


def _inside_cuts(source: str, block: _Block) -> list[Cut]:
    starts = block.line_starts
    if block.kind == "fence":
        # Cut before the last line: it may be incomplete, and the closing fence may follow.
        opened = FENCE_OPEN.match(block.first_line)
        assert opened is not None  # a fence block starts with its opening line
        marker = opened.group(2)
        reopen = block.first_line + "\n"
        return [Cut(at, close=marker, reopen=reopen, seam="block") for at in starts[1:][-1:]]
    if block.kind == "list":
        indent = len(block.first_line) - len(block.first_line.lstrip(" "))
        siblings = [at for at in starts if _is_sibling_item(source, at, indent)]
        return [Cut(at, seam="block") for at in siblings[-1:]]
    if block.kind == "table":
        # starts: delimiter row, first body row, …; the header and delimiter are repeated.
        reopen = source[block.start : starts[1]] if len(starts) > 1 else ""
        return [Cut(at, reopen=reopen, seam="block") for at in starts[2:][-1:]]
    if block.kind == "quote":
        return [Cut(at, seam="block") for at in starts[-1:]]
    if block.kind == "paragraph":
        at = _paragraph_cut(source, block.start)
        return [Cut(at, seam="text")] if at is not None else []
    return []


def _is_sibling_item(source: str, at: int, indent: int) -> bool:
    line = source[at : source.find("\n", at) if "\n" in source[at:] else len(source)]
    match = ITEM.match(line)
    return match is not None and len(match.group(1)) == indent


def _paragraph_cut(source: str, start: int) -> int | None:
    """The last sentence end (else word gap) where no inline span is left open."""
    text = source[start:]
    best = None
    for pattern in (_SENTENCE_END, _SPACE):
        at = next(
            (m.end() for m in reversed(list(pattern.finditer(text))) if _inline_balanced(text[: m.start()])),
            None,
        )
        # A sentence end in the second half is preferred; else whatever freezes more.
        if at is not None and (pattern is _SENTENCE_END and at >= len(text) // 2):
            return start + at
        if at is not None and (best is None or at > best):
            best = at
    return None if best is None else start + best


def _inline_balanced(text: str) -> bool:
    return (
        text.count("`") % 2 == 0
        and text.count("**") % 2 == 0
        and text.count("[") <= text.count("]")
        and text.count("~~") % 2 == 0
    )
