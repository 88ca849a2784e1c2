"""Notebook cells as the agent sees them: an outline line each, or the full source with outputs.

Cells are plain dicts in the nbformat 4 shape (``cell_type``, ``source``, ``outputs``, ``id``,
``execution_count``), whether they come from the live document or from the file on disk.

Outputs are values (an agent cell's saved answer included): given a ``DataPolicy`` they are shown
as it allows (``tools/disclosure.py``): under ``schema`` their kind and size, an error's type and
lines, an image's size; under ``sample`` a few lines of each. Sources are code and prose, shown whole.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Sequence

from jupyter_agent.features.frontend import CellJson, CellOutput
from jupyter_agent.loop import ToolOutput
from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.runtime.privacy import count_label, sample_text
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.disclosure import Frame, disclosed, image_label, traceback_structure

OUTLINE_SOURCE_CHARS = 160
OUTLINE_OUTPUT_CHARS = 120
FULL_OUTPUT_CHARS = 8_000
TRACEBACK_LINES = 3
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Where an IPython traceback's frames are: "Cell In[3], line 2", "File ~/x.py:12, in f(a)".
_CELL_FRAME = re.compile(r"^(Cell In\[\d+\]), line (\d+)")
_FILE_FRAME = re.compile(r"^File (.+?):(\d+), in ([\w.<>]+)")
IMAGE_MIMES = ("image/png", "image/jpeg")


@dataclass(frozen=True)
class CellText:
    """A cell as the model may read it under a policy, and how much of its outputs that withheld."""

    text: str
    images: list[ImageContent]
    withheld: int = 0  # characters of output (and images) left out


def text_of(value: object) -> str:
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
    outputs: list[CellOutput] = field(default_factory=list)
    note: str = ""  # e.g. "run since the last save (kernel history)"

    @classmethod
    def from_json(cls, index: int, data: CellJson, note: str = "") -> "Cell":
        return cls(
            index=index,
            id=str(data.get("id") or f"index-{index}"),
            cell_type=str(data.get("cell_type", "code")),
            source=text_of(data.get("source", "")),
            execution_count=data.get("execution_count"),
            outputs=list(data.get("outputs") or []),
            note=note,
        )

    def outline(self, policy: DataPolicy | None = None) -> str:
        count = f"[{self.execution_count}]" if self.execution_count else "[ ]" if self.cell_type == "code" else ""
        head = f"{self.index} · {self.id} · {self.cell_type}{' ' + count if count else ''}"
        if self.note:
            head += f" · {self.note}"
        lines = [head, _indent(_cap(self.source, OUTLINE_SOURCE_CHARS) or "(empty)")]
        summary = [s for s in (output_summary(o, policy) for o in self.outputs) if s]
        if summary:
            lines.append(_indent("→ " + " | ".join(summary)))
        return "\n".join(lines)

    def full(self) -> tuple[str, list[ImageContent]]:
        """The source and every output (the user's copy)."""
        shown = self.shown(None)
        return shown.text, shown.images

    def shown(self, policy: DataPolicy | None) -> CellText:
        """The source and the outputs as ``policy`` allows (``None``: all of them)."""
        count = f" [{self.execution_count}]" if self.execution_count else ""
        parts = [
            f"cell {self.index} · id {self.id} · {self.cell_type}{count}{' · ' + self.note if self.note else ''}",
            f"source:\n{self.source}" if self.source else "source: (empty)",
        ]
        images: list[ImageContent] = []
        withheld = 0
        for output in self.outputs:
            text = output_text(output)
            if text:
                shown, cut = _output_for(output, text, policy)
                withheld += cut
                parts.append(f"output ({output.get('output_type', 'output')}):\n{shown}")
            data = output.get("data") or {}
            for mime in IMAGE_MIMES:
                if mime in data:
                    image = ImageContent(data="".join(text_of(data[mime]).split()), mime_type=mime)
                    if policy is not None and policy.mode == "schema":
                        parts.append(f"output: {image_label(image.data, mime)} (not attached)")
                        withheld += 1
                    else:
                        parts.append(f"output: {mime} (attached as an image)")
                        images.append(image)
        return CellText("\n".join(parts), images, withheld)


def output_text(output: CellOutput) -> str:
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


def _output_for(output: CellOutput, text: str, policy: DataPolicy | None) -> tuple[str, int]:
    """One output's text as ``policy`` allows, and the characters it withheld."""
    capped = _cap(text, FULL_OUTPUT_CHARS)
    if policy is None or policy.mode == "full":
        return capped, 0
    if policy.mode == "sample":
        return sample_text(capped, policy.sample_lines, policy.line_chars)
    if output.get("output_type") == "error":
        return error_structure(output), len(text)
    mimes = ", ".join(sorted(output.get("data") or {})) or output.get("name", "text")
    return f"[{mimes}: {count_label(text)}; values withheld]", len(text)


def error_structure(output: CellOutput) -> str:
    """A saved error's type and the lines its traceback passed, without its message."""
    frames = []
    for line in output.get("traceback") or []:
        plain = _plain(str(line)).strip()
        cell = _CELL_FRAME.match(plain)
        if cell:
            frames.append(Frame(cell.group(1).replace("Cell", "cell"), int(cell.group(2)), ""))
            continue
        found = _FILE_FRAME.match(plain)
        if found:
            frames.append(Frame(found.group(1), int(found.group(2)), found.group(3)))
    return traceback_structure(str(output.get("ename", "Error")), frames, len(str(output.get("evalue", ""))))


def output_summary(output: CellOutput, policy: DataPolicy | None = None) -> str:
    kind = output.get("output_type")
    data = output.get("data") or {}
    if policy is not None and policy.mode == "schema":
        if kind == "error":
            return f"{output.get('ename', 'Error')} (message withheld)"
        pieces = [image_label("".join(text_of(data[mime]).split()), mime) for mime in IMAGE_MIMES if mime in data]
        text = output_text(output)
        if text:
            pieces.insert(0, f"{output.get('name') or kind} {count_label(text)}")
        return ", ".join(pieces)
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


def outline(cells: list[Cell], source: str, policy: DataPolicy | None = None) -> str:
    body = "\n".join(cell.outline(policy) for cell in cells) or "(no cells)"
    return f"Notebook ({len(cells)} cells; source: {source})\n{body}"


def outlines(cells: list[Cell], source: str, policy: DataPolicy) -> tuple[str, str]:
    """The outline the model gets under ``policy`` and the user's whole one: one string when the
    policy changes nothing in an outline (only schema summarizes outputs, ``output_summary``), so a
    2 000-cell outline is built once."""
    shown = outline(cells, source, policy)
    return shown, outline(cells, source) if policy.mode == "schema" else shown


def text_blocks(text: str) -> list[TextContent]:
    return [TextContent(text=text)]


def _plain(text: str) -> str:
    return _ANSI.sub("", text)


def _cap(text: str, limit: int) -> str:
    text = text.rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def cells_output(
    model: Sequence[TextContent | ImageContent],
    local: Sequence[TextContent | ImageContent],
    cells: list[Cell],
    policy: DataPolicy,
) -> ToolOutput:
    """``cells`` in full after ``model``/``local``: the model's copy under ``policy``, the user's whole."""
    model, local = list(model), list(local)
    withheld = 0
    for cell in cells:
        shown = cell.shown(policy)
        whole = cell.shown(None) if shown.withheld else shown
        withheld += shown.withheld
        model += [TextContent(text=shown.text), *shown.images]
        local += [TextContent(text=whole.text), *whole.images]
    images = sum(1 for block in local if isinstance(block, ImageContent)) - sum(1 for b in model if isinstance(b, ImageContent))
    what = _withheld_phrase(withheld - images, images) if withheld else ""
    return disclosed(model, local, policy, what)


def _withheld_phrase(chars: int, images: int) -> str:
    pieces = [f"{chars} characters of cell output"] if chars > 0 else []
    pieces += [f"{images} image{'s' if images != 1 else ''}"] if images else []
    return " and ".join(pieces) or "cell output"
