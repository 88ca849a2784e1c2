"""Notebook cells as the agent sees them: an outline line each, or the full source with outputs.

Cells are plain dicts in the nbformat 4 shape (``cell_type``, ``source``, ``outputs``, ``id``,
``execution_count``), whether they come from the live document or from the file on disk.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.messages import ImageContent, TextContent

OUTLINE_SOURCE_CHARS = 160
OUTLINE_OUTPUT_CHARS = 120
FULL_OUTPUT_CHARS = 8_000
TRACEBACK_LINES = 3
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def text_of(value: Any) -> str:
    """nbformat stores multi-line strings as lists of lines."""
    return "".join(value) if isinstance(value, list) else str(value or "")


def digest(source: str) -> str:
    """What a read remembers of a cell to know later whether it changed."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


@dataclass
class Cell:
    index: int
    id: str
    cell_type: str
    source: str
    execution_count: int | None = None
    outputs: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""  # e.g. "run since the last save (kernel history)"

    @classmethod
    def from_json(cls, index: int, data: dict[str, Any], note: str = "") -> "Cell":
        return cls(
            index=index,
            id=str(data.get("id") or f"index-{index}"),
            cell_type=str(data.get("cell_type", "code")),
            source=text_of(data.get("source", "")),
            execution_count=data.get("execution_count"),
            outputs=list(data.get("outputs") or []),
            note=note,
        )

    def outline(self) -> str:
        count = f"[{self.execution_count}]" if self.execution_count else "[ ]" if self.cell_type == "code" else ""
        head = f"{self.index} · {self.id} · {self.cell_type}{' ' + count if count else ''}"
        if self.note:
            head += f" · {self.note}"
        lines = [head, _indent(_cap(self.source, OUTLINE_SOURCE_CHARS) or "(empty)")]
        summary = [s for s in (output_summary(o) for o in self.outputs) if s]
        if summary:
            lines.append(_indent("→ " + " | ".join(summary)))
        return "\n".join(lines)

    def full(self) -> tuple[str, list[ImageContent]]:
        count = f" [{self.execution_count}]" if self.execution_count else ""
        parts = [
            f"cell {self.index} · id {self.id} · {self.cell_type}{count}{' · ' + self.note if self.note else ''}",
            f"source:\n{self.source}" if self.source else "source: (empty)",
        ]
        images: list[ImageContent] = []
        for output in self.outputs:
            text = output_text(output)
            if text:
                parts.append(f"output ({output.get('output_type', 'output')}):\n{_cap(text, FULL_OUTPUT_CHARS)}")
            data = output.get("data") or {}
            for mime in ("image/png", "image/jpeg"):
                if mime in data:
                    parts.append(f"output: {mime} (attached as an image)")
                    images.append(ImageContent(data="".join(text_of(data[mime]).split()), mime_type=mime))
        return "\n".join(parts), images


def output_text(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return _plain(text_of(output.get("text", "")))
    if kind == "error":
        trace = [_plain(line) for line in output.get("traceback") or []]
        return "\n".join([f"{output.get('ename', 'Error')}: {output.get('evalue', '')}", *trace]).strip()
    data = output.get("data") or {}
    for mime in ("text/markdown", "text/plain"):
        if mime in data:
            return _plain(text_of(data[mime]))
    return ""


def output_summary(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "error":
        trace = [line for line in (_plain(line).strip() for line in output.get("traceback") or []) if line]
        tail = " / ".join(trace[-TRACEBACK_LINES:])
        return _cap(
            f"{output.get('ename', 'Error')}: {output.get('evalue', '')}" + (f" ({tail})" if tail else ""),
            OUTLINE_OUTPUT_CHARS * 2,
        )
    data = output.get("data") or {}
    marks = [mime for mime in ("image/png", "image/jpeg", "image/svg+xml") if mime in data]
    text = " ".join(output_text(output).split())
    if "application/vnd.jupyter.widget-view+json" in data and not text:
        text = "widget"
    pieces = [_cap(text, OUTLINE_OUTPUT_CHARS)] if text else []
    return " ".join(pieces + [f"<{mark}>" for mark in marks])


def outline(cells: list[Cell], source: str) -> str:
    body = "\n".join(cell.outline() for cell in cells) or "(no cells)"
    return f"Notebook ({len(cells)} cells; source: {source})\n{body}"


def text_blocks(text: str) -> list[TextContent]:
    return [TextContent(text=text)]


def _plain(text: str) -> str:
    return _ANSI.sub("", text)


def _cap(text: str, limit: int) -> str:
    text = text.rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
