"""What of a kernel value the model may read under the data policy: the source half of the privacy gate.

The ``python`` tool's output is a sequence of parts (printed text, the last expression's value,
displays, images, a traceback), each rendered for the model as the policy allows:

* ``schema``: printed text and displays become their size ("12 lines, 480 characters"), a value
  its structure (type, shape, column names and dtypes, length; ``structure_of``), a traceback its
  error type and the line of each frame (``frames_of``), an image its size ("image/png 640×480");
* ``sample``: printed text, displays and tracebacks keep ``sample_lines`` lines (head and tail) of
  ``line_chars`` characters; a frame, series or array value shows ``sample_rows`` rows;
* ``full``: everything the output caps allow.

The model's copy ends with a note of what was withheld and how to allow it (``withheld_line``);
the user's copy is the whole output. The same helpers render notebook cell outputs
(``features/notebook_tools``), ``@cell`` mentions and ``%agent fix``. Nothing here runs user code
beyond what the code itself asked for (the repr of its own last value).
"""

from __future__ import annotations

import base64
import binascii
import os
import struct
import sys
import traceback
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Callable, cast

from jupyter_agent.loop import ToolOutput
from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.runtime.privacy import count_label, policy_details, sample_text, withheld_details
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.objects import is_a, is_dataframe, is_ndarray, is_series, shape_text, type_name

# Columns named in a frame's structure: enough to write code against; the rest are counted.
STRUCTURE_COLUMNS = 50
# Parts of one call's output kept apart for the model; past this many, the rest are counted.
MAX_PARTS = 200
# Frames of a traceback shown by line: the outermost and the innermost ones matter.
MAX_FRAMES = 12


def withheld_line(policy: DataPolicy, what: str) -> str:
    """The note that ends a model copy that withheld ``what``."""
    if policy.mode == "schema":
        return (
            f"[Values withheld (data_policy 'schema'): {what}. The model sees structure only; the user's card "
            f"shows the whole output; {policy.allow_hint()}.]"
        )
    return f"[data_policy 'sample': {what} withheld. The user's card shows the whole output; {policy.allow_hint()}.]"


# -- structure ------------------------------------------------------------------------------------


def structure_of(value: Any) -> str:
    """A value's structure without any of its values: "DataFrame 3 rows × 2 columns: a int64, b object"."""
    name = type_name(value)
    if is_dataframe(value):
        try:
            columns = [f"{column} {dtype}" for column, dtype in list(value.dtypes.items())[:STRUCTURE_COLUMNS]]
        except Exception:  # noqa: BLE001 - an odd extension dtype must not break the structure
            columns = []
        more = f", … {value.shape[1] - STRUCTURE_COLUMNS} more" if value.shape[1] > STRUCTURE_COLUMNS else ""
        return f"{name} {shape_text(value)}" + (f": {', '.join(columns)}{more}" if columns else "")
    if is_series(value):
        label = f" {value.name!r}" if type(value.name) in (str, int) else ""
        return f"{name}{label} {shape_text(value)}, dtype {value.dtype}"
    if is_ndarray(value):
        return f"{name} {shape_text(value)}, dtype {value.dtype}"
    if type(value) in (str, bytes, bytearray):
        return f"{name} of {len(value)} {'characters' if type(value) is str else 'bytes'}"
    shape = shape_text(value)
    return f"{name}, {shape}" if shape else name


def image_size(data: str, mime_type: str) -> tuple[int, int] | None:
    """Width and height of a base64 PNG, JPEG or GIF, read from its header (``None`` if unknown)."""
    try:
        head = base64.b64decode(data[:65_536], validate=False)
    except (binascii.Error, ValueError):
        return None
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return width, height
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        width, height = struct.unpack("<HH", head[6:10])
        return width, height
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(head)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    index = 2
    while index + 9 <= len(data):
        if data[index] != 0xFF:
            return None
        marker = data[index + 1]
        length = struct.unpack(">H", data[index + 2 : index + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return width, height
        index += 2 + length
    return None


def image_label(data: str, mime_type: str) -> str:
    size = image_size(data, mime_type)
    return f"image {mime_type} {size[0]}×{size[1]}" if size else f"image {mime_type}"


@dataclass(frozen=True)
class Frame:
    where: str  # "the code", "cell In[4]", "pandas/core/frame.py"
    line: int | None
    function: str


def frames_of(
    error: BaseException, cell_name: Callable[[str], str | None] = lambda _: None, tb: TracebackType | None = None
) -> list[Frame]:
    """Where a traceback (``tb``, default the error's own) passed, without its message or source
    text. ``cell_name(filename)`` names a notebook cell's file ("cell In[4]"); others are paths."""
    frames: list[Frame] = []
    for summary in traceback.extract_tb(tb or error.__traceback__):
        if not frames and _is_ipython(summary.filename):
            continue  # IPython's own frames that run the code: not where it failed
        where = cell_name(summary.filename) or _short_path(summary.filename)
        frames.append(Frame(where, summary.lineno, summary.name))
    return frames


def cell_names(shell: Any) -> Callable[[str], str | None]:
    """A traceback frame's file as the user knows it: "cell In[4]" for a cell's code (IPython
    compiles each cell under a file name of its own)."""
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    mapping = names if isinstance(names, dict) else {}

    def cell_name(filename: str) -> str | None:
        number = mapping.get(filename)
        return f"cell In[{number}]" if number is not None else None

    return cell_name


def _is_ipython(filename: str) -> bool:
    return "/IPython/core/" in filename.replace("\\", "/")


def _short_path(filename: str) -> str:
    parts = filename.replace("\\", "/").split("/")
    for anchor in ("site-packages", "dist-packages", "lib"):
        if anchor in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(anchor) :]) or os.path.basename(filename)
    return "/".join(parts[-2:]) if len(parts) > 1 else filename


def traceback_structure(error_type: str, frames: list[Frame], message_chars: int) -> str:
    """``KeyError`` with the line of each frame and the length of its (withheld) message."""
    shown = frames if len(frames) <= MAX_FRAMES else [*frames[:2], *frames[-(MAX_FRAMES - 2) :]]
    lines = [f"{error_type} (message withheld: {message_chars} characters)"]
    if len(frames) > len(shown):
        lines.append(f"  ({len(frames) - len(shown)} frames in between not listed)")
    for frame in shown:
        at = f", line {frame.line}" if frame.line is not None else ""
        function = f", in {frame.function}" if frame.function and frame.function != "<module>" else ""
        lines.append(f"  at {frame.where}{at}{function}")
    return "\n".join(lines)


# -- one call's output, part by part --------------------------------------------------------------


@dataclass
class _Part:
    kind: str  # "printed", "value", "display", "image", "traceback"
    model: str  # the part as the model may see it
    withheld: int = 0  # characters (or images) the model's text leaves out


@dataclass
class Disclosure:
    """Collects one ``python`` call's output as the model may see it under ``policy``.

    The sink that captures the output tells it each piece as it comes; ``render()`` gives the
    model's text and the note of what it withheld. Under ``full`` it is not used at all."""

    policy: DataPolicy
    parts: list[_Part] = field(default_factory=list)
    dropped: int = 0  # parts past MAX_PARTS
    _printed_chars: int = 0
    _printed_lines: int = 0
    _head: list[str] = field(default_factory=list)
    _head_chars: int = 0
    _tail: list[str] = field(default_factory=list)

    _budget: int = 0

    def __post_init__(self) -> None:
        # What the sample can show of a text: its lines, each clipped, from the head and the tail.
        self._budget = self.policy.sample_lines * (self.policy.line_chars + 1)
        self._sampled = self.policy.mode == "sample"

    def printed(self, text: str) -> None:
        # Called for every write of the code (thousands a call): counters, and under sample the
        # text only as far as the model's copy can show it, the head and a bounded tail.
        self._printed_chars += len(text)
        self._printed_lines += text.count("\n")
        if not self._sampled:
            return
        if self._head_chars < self._budget:
            self._head.append(text)
            self._head_chars += len(text)
            return
        self._tail.append(text)
        if len(self._tail) > 512:  # amortized: the tail is cut back to the budget now and then
            self._tail = ["".join(self._tail)[-self._budget :]]

    def value(self, value: Any, text: str, reformat: Callable[[Any], str | None]) -> None:
        """The last expression's value, formatted as ``text``; ``reformat`` formats another value."""
        self._flush_printed()
        if self.policy.mode == "schema":
            self._add(_Part("value", _out(structure_of(value)), len(text)))
            return
        sampled = _sample_value(value, self.policy, reformat)
        if sampled is not None:
            self._add(_Part("value", _out(sampled), max(1, len(text) - len(sampled))))
            return
        shown, withheld = sample_text(text, self.policy.sample_lines, self.policy.line_chars)
        self._add(_Part("value", _out(shown), withheld))

    def display(self, text: str, mimes: list[str]) -> None:
        self._flush_printed()
        if self.policy.mode == "schema":
            self._add(_Part("display", f"[display ({', '.join(mimes) or 'nothing'}): {count_label(text)}]", len(text)))
            return
        shown, withheld = sample_text(text, self.policy.sample_lines, self.policy.line_chars)
        self._add(_Part("display", shown, withheld))

    def image(self, block: ImageContent) -> None:
        """An image returned to the user; the model gets it unless the policy is schema."""
        if self.policy.mode == "schema":
            self._flush_printed()
            self._add(_Part("image", f"[{image_label(block.data, block.mime_type)}]", 1))

    def traceback(self, error: BaseException | None, text: str, cell_name: Callable[[str], str | None]) -> None:
        self._flush_printed()
        if self.policy.mode == "schema":
            if error is None:
                self._add(_Part("traceback", f"[an error: {count_label(text)}]", len(text)))
                return
            if is_a(error, SyntaxError):
                # About the code the agent wrote, not the data: the kind of mistake and where.
                syntax = cast(SyntaxError, error)
                self._add(_Part("traceback", f"{type(error).__name__}: {syntax.msg} (line {syntax.lineno})", 0))
                return
            message = str(error) if _plain_str(error) else ""
            structure = traceback_structure(type(error).__name__, frames_of(error, cell_name), len(message))
            self._add(_Part("traceback", structure, len(text)))
            return
        shown, withheld = sample_text(text, self.policy.sample_lines, self.policy.line_chars)
        self._add(_Part("traceback", shown, withheld))

    def render(self) -> tuple[str, str]:
        """(the model's text, what it withheld in one line, "" when nothing was)."""
        self._flush_printed()
        texts = [part.model for part in self.parts]
        if self.dropped:
            texts.append(f"[… {self.dropped} more outputs …]")
        return "\n".join(texts), self._summary()

    def _summary(self) -> str:
        withheld = [part for part in self.parts if part.withheld]
        if not withheld and not self.dropped:
            return ""
        images = sum(1 for part in withheld if part.kind == "image")
        chars = sum(part.withheld for part in withheld if part.kind != "image")
        pieces = []
        if chars:
            pieces.append(f"{chars} characters of output")
        if images:
            pieces.append(f"{images} image{'s' if images != 1 else ''}")
        if self.dropped:
            pieces.append(f"{self.dropped} more outputs")
        return " and ".join(pieces)

    def _add(self, part: _Part) -> None:
        if len(self.parts) >= MAX_PARTS:
            self.dropped += 1
            return
        self.parts.append(part)

    def _flush_printed(self) -> None:
        if not self._printed_chars:
            return
        total, self._printed_chars = self._printed_chars, 0
        lines, self._printed_lines = self._printed_lines, 0
        if self.policy.mode == "schema":
            label = f"{max(lines, 1)} line{'s' if lines > 1 else ''}, {total} character{'s' if total != 1 else ''}"
            self._add(_Part("printed", f"[printed: {label}]", total))
            return
        head, tail = "".join(self._head), "".join(self._tail)[-self._budget :]
        kept = len(head) + len(tail)
        joined = head + tail if kept == total else f"{head}\n[… output withheld …]\n{tail}"
        self._head, self._head_chars, self._tail = [], 0, []
        shown, withheld = sample_text(joined.rstrip("\n"), self.policy.sample_lines, self.policy.line_chars)
        self._add(_Part("printed", shown, withheld + total - kept))


def _out(text: str) -> str:
    # As in the user's copy: a table starts on its own line, so its columns stay aligned.
    return f"Out:\n{text}" if "\n" in text else f"Out: {text}"


def _plain_str(error: BaseException) -> bool:
    # An exception class of the user's may define __str__; only the interpreter's and the
    # libraries' own are read for the message's length.
    module = type(error).__module__
    return module == "builtins" or module.split(".")[0] in ("pandas", "numpy")


def _sample_value(value: Any, policy: DataPolicy, reformat: Callable[[Any], str | None]) -> str | None:
    """A frame, series or array value cut to ``sample_rows`` rows; ``None`` for other values and
    for short ones (their text is sampled like printed text)."""
    rows = policy.sample_rows
    try:
        if is_dataframe(value) or is_series(value):
            if len(value) <= rows:
                return None
            text = (reformat(value.head(rows)) or "") if rows else ""
        elif is_ndarray(value) and value.ndim and len(value) > rows:
            numpy = sys.modules["numpy"]
            text = numpy.array2string(value[:rows], threshold=max(rows, 1) * 4, edgeitems=max(1, rows // 2)) if rows else ""
        else:
            return None
    except Exception:  # noqa: BLE001 - a value that cannot be cut is sampled as text
        return None
    shown, _ = sample_text(text, policy.sample_lines, policy.line_chars)
    return f"{structure_of(value)}; first {rows} rows:\n{shown}\n[… {len(value) - rows} rows withheld …]"


def under_policy(blocks: list[TextContent | ImageContent], policy: DataPolicy) -> list[TextContent | ImageContent] | ToolOutput:
    """A result made under ``policy`` (values already within it), marked so for the privacy gate."""
    return blocks if policy.mode == "full" else ToolOutput(content=blocks, details=policy_details(policy.mode))


def disclosed(
    model: list[TextContent | ImageContent],
    local: list[TextContent | ImageContent],
    policy: DataPolicy,
    withheld: str,
    details: Any = None,
) -> ToolOutput:
    """A result whose model copy is ``model``: when it ``withheld`` something (one phrase: "12
    characters of output"), the note saying so follows its text and ``local`` rides in the details."""
    if not withheld:
        return ToolOutput(content=model, details=policy_details(policy.mode, details) if policy.mode != "full" else details)
    texts = [index for index, block in enumerate(model) if isinstance(block, TextContent)]
    at = texts[-1] + 1 if texts else 0
    content = [*model[:at], TextContent(text=withheld_line(policy, withheld)), *model[at:]]
    return ToolOutput(content=content, details=withheld_details(policy.mode, withheld, local, details))


def blocks_for_model(text: str, images: list[ImageContent], policy: DataPolicy) -> list[TextContent | ImageContent]:
    """The model's blocks of an output: its text, then its images unless the policy is schema."""
    blocks: list[TextContent | ImageContent] = [TextContent(text=text)]
    return blocks if policy.mode == "schema" else [*blocks, *images]


__all__ = [
    "Disclosure",
    "Frame",
    "MAX_FRAMES",
    "blocks_for_model",
    "cell_names",
    "disclosed",
    "frames_of",
    "image_label",
    "image_size",
    "structure_of",
    "traceback_structure",
    "under_policy",
    "withheld_line",
]
