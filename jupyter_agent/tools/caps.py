"""Output caps shared by every tool: one place that decides how much text reaches the model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

AnyText = TypeVar("AnyText", str, bytes)


@dataclass(frozen=True)
class OutputCaps:
    # A result the model can read in one go without crowding out the conversation (pi's figures).
    max_lines: int = 2000
    max_bytes: int = 50_000
    # One minified line must not eat the whole budget.
    max_line_chars: int = 2000
    # A grep hit line is context, not content; 300 characters show it.
    grep_line_chars: int = 300
    # A few hits per file show where to look; a whole file of hits is noise.
    grep_max_per_file: int = 20
    grep_max_matches: int = 200
    # Files this large are logs or data, not source; reading them would stall the search.
    grep_max_file_bytes: int = 20_000_000
    # Matching one file may take this long; past it the pattern is taken to be backtracking.
    grep_file_seconds: float = 2.0
    # A tree of 500 entries shows a project's shape; beyond that the model should list a subfolder.
    list_max_entries: int = 500
    # File paths are short; 1000 of them fit the byte cap and say "narrow the pattern" clearly.
    glob_max_results: int = 1000
    # read hashes a whole file (for read-before-write) up to this size; past it, only the window.
    read_max_file_bytes: int = 100_000_000
    # Providers refuse images over about 5 MB; a few images per result is plenty.
    max_image_bytes: int = 5_000_000
    max_images: int = 8
    # Bash and python keep this much of a stream's head and tail while it runs.
    capture_bytes: int = 200_000


DEFAULT_CAPS = OutputCaps()


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # unreachable; keeps type checkers calm


def clip_line(line: str, max_chars: int) -> str:
    if len(line) <= max_chars:
        return line
    return line[:max_chars] + f"… [{len(line) - max_chars} more characters]"


def utf8_len(text: str) -> int:
    # ASCII is the common case and needs no encoding pass.
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


def truncate_head(text: str, caps: OutputCaps, hint: str = "") -> str:
    """Keeps the start of ``text`` within the line and byte caps; appends a note when cut."""
    lines = text.split("\n")
    kept: list[str] = []
    size = 0
    for line in lines:
        line = clip_line(line, caps.max_line_chars)
        cost = utf8_len(line) + 1
        if len(kept) >= caps.max_lines or size + cost > caps.max_bytes:
            break
        kept.append(line)
        size += cost
    if len(kept) == len(lines):
        return "\n".join(kept)
    note = f"[Output truncated: showing {len(kept)} of {len(lines)} lines."
    return "\n".join(kept) + "\n" + note + (f" {hint}]" if hint else "]")


def truncate_head_tail(text: str, caps: OutputCaps, omitted_before: int = 0) -> str:
    """Keeps the head and the tail (where errors and results usually are), cutting the middle.

    ``omitted_before`` counts characters a capture buffer already dropped from the middle.
    """
    lines = text.split("\n")
    lines = [clip_line(line, caps.max_line_chars) for line in lines]
    budget_lines = caps.max_lines
    budget_bytes = caps.max_bytes
    total_bytes = sum(utf8_len(line) + 1 for line in lines)
    if len(lines) <= budget_lines and total_bytes <= budget_bytes and not omitted_before:
        return "\n".join(lines)
    head = _take(lines, budget_lines // 2, budget_bytes // 2)
    tail = _take(list(reversed(lines[len(head) :])), budget_lines - len(head), budget_bytes // 2)
    tail.reverse()
    cut_lines = len(lines) - len(head) - len(tail)
    cut_bytes = total_bytes - sum(utf8_len(line) + 1 for line in head + tail) + omitted_before
    if omitted_before:
        # The capture buffer already dropped lines it never counted.
        note = f"[… {human_size(cut_bytes)} cut from the middle of the output …]"
    else:
        note = f"[… {cut_lines} lines ({human_size(cut_bytes)}) cut from the middle of the output …]"
    return "\n".join(head + [note] + tail)


def _take(lines: list[str], max_lines: int, max_bytes: int) -> list[str]:
    taken: list[str] = []
    size = 0
    for line in lines:
        cost = utf8_len(line) + 1
        if len(taken) >= max_lines or size + cost > max_bytes:
            break
        taken.append(line)
        size += cost
    return taken


class HeadTailBuffer(Generic[AnyText]):
    """Keeps the first and last ``limit`` units of a stream of unknown length, counting the rest.

    Memory stays bounded however much a command prints, and each write costs amortized O(chunk):
    the tail is a list of chunks compacted only when it holds twice the limit.
    """

    def __init__(self, empty: AnyText, limit: int) -> None:
        self._empty: AnyText = empty
        self._limit = limit
        self._head: list[AnyText] = []
        self._head_len = 0
        self._tail: list[AnyText] = []
        self._tail_len = 0
        self.total = 0

    def write(self, chunk: AnyText) -> None:
        if not chunk:
            return
        self.total += len(chunk)
        room = self._limit - self._head_len
        if room > 0:
            self._head.append(chunk[:room])
            self._head_len += len(self._head[-1])
            chunk = chunk[room:]
        if chunk:
            self._tail.append(chunk)
            self._tail_len += len(chunk)
            if self._tail_len > 2 * self._limit:
                self._compact_tail()

    def _compact_tail(self) -> None:
        joined = self._empty.join(self._tail)[-self._limit :]
        self._tail = [joined]
        self._tail_len = len(joined)

    @property
    def omitted(self) -> int:
        self._compact_tail()
        return self.total - self._head_len - self._tail_len

    def value(self) -> AnyText:
        """The kept text; the cut (if any) sits between the head and the tail."""
        self._compact_tail()
        return self._empty.join(self._head) + self._tail[0]
