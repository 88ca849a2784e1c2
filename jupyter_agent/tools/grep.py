"""The ``grep`` tool: lines matching a regular expression, as ``path:line: text``.

Binary files, cache folders and very large files are skipped. Most files do not match, so each
file is first tested as a whole (a literal pattern even before decoding) and split into lines
only when it can match.

The search runs in a child process that Stop kills (``grep_process``): a pattern that backtracks
catastrophically, such as ``(a+)+$`` on a long line, would otherwise hold the interpreter for as
long as it runs (``re`` keeps the GIL for a whole match, freezing the notebook). Inside the child
the ``regex`` engine (``re`` syntax) gives up on a file after ``caps.grep_file_seconds`` where it can,
with a note, so one bad file does not cost the whole search.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import regex
from pydantic import BaseModel, Field

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.backtracking import may_backtrack
from jupyter_agent.tools.blocking import Stopped, in_thread
from jupyter_agent.tools.caps import OutputCaps, clip_line, truncate_head
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.glob_pattern import compile_glob
from jupyter_agent.tools.grep_process import run_bounded
from jupyter_agent.tools.regular_file import refuse_special
from jupyter_agent.tools.textfiles import decode_text, has_binary_extension, looks_binary
from jupyter_agent.tools.walk import open_entry, walk
from jupyter_agent.tools.workspace import Workspace

DESCRIPTION = (
    "Search file contents with a Python regular expression; prints `path:line: text` for each "
    "matching line. Use path to search a folder or one file and glob (e.g. `*.py`, `src/**/*.ts`) "
    "to filter files. Binary files and cache folders (.git, node_modules, …) are skipped. "
    "Use (?i) for a case-insensitive search."
)

_REGEX_SPECIALS = set(".^$*+?{}[]\\|()")
# Most source files fit in one read of this size.
_FIRST_READ = 65536
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
# How often (in lines) a long file's line loop looks whether the run was stopped.
_STOP_CHECK_LINES = 1024


class GrepArgs(BaseModel):
    pattern: str = Field(description="Regular expression (Python `re` syntax).")
    path: str = Field(default=".", description="Folder or file to search, relative to the workspace.")
    glob: str | None = Field(default=None, description="Only files matching this glob (name, or path with /).")


@dataclass
class _Search:
    line_regex: regex.Pattern[str]
    whole_regex: regex.Pattern[str]
    literal: bytes | None
    caps: OutputCaps
    lines: list[str] = field(default_factory=list)
    matches: int = 0
    files: int = 0
    skipped_large: int = 0
    too_slow: list[str] = field(default_factory=list)
    guarded: bool = True  # whether the pattern may backtrack: only then a time limit per match
    stopped: bool = False
    stop: threading.Event = field(default_factory=threading.Event)


def grep_tool(workspace: Workspace, caps: OutputCaps) -> AgentTool:
    async def execute(args: GrepArgs, signal) -> list:
        text = await in_thread(lambda stop: run_bounded(search, (workspace, caps, args), stop))
        return [TextContent(text=text)]

    return AgentTool(name="grep", description=DESCRIPTION, parameters=GrepArgs, execute=execute, label="Grep", read_only=True)


def search(workspace: Workspace, caps: OutputCaps, args: GrepArgs, stop: threading.Event | None = None) -> str:
    """The search itself; the tool runs it in a child process (``grep_process``)."""
    stop = stop or threading.Event()
    state = _Search(*_compile(args.pattern), caps=caps, stop=stop, guarded=may_backtrack(args.pattern))
    start = workspace.resolve(args.path)
    shown = workspace.relative(start)
    found = workspace.found(start, shown, "search")
    if found is None:
        raise ToolError(f"Path not found: {shown}.")
    file_filter = compile_glob(args.glob) if args.glob else None
    by_path = bool(args.glob and "/" in args.glob)
    if stat.S_ISREG(found.st_mode):
        _search_file(partial(workspace.open, start, _OPEN_FLAGS), shown, state)
    elif not stat.S_ISDIR(found.st_mode):
        refuse_special(found.st_mode, shown, "grep")
    else:
        # Names are built from the walk's relative paths: os.path.relpath per file costs more than the search.
        prefix = "" if start == workspace.root else shown + "/"
        for entry in walk(str(start), workspace, stop=stop):
            if entry.is_dir or has_binary_extension(entry.name):
                continue
            if file_filter and not file_filter.match(entry.relative if by_path else entry.name):
                continue
            _search_file(partial(open_entry, entry, workspace, _OPEN_FLAGS), prefix + entry.relative, state)
            if state.stopped:
                break
    return _report(state, args, workspace.relative(start))


def _compile(pattern: str) -> tuple[regex.Pattern[str], regex.Pattern[str], bytes | None]:
    try:
        line_regex = regex.compile(pattern)
        whole_regex = regex.compile(pattern, regex.MULTILINE)
    except (regex.error, ValueError) as error:
        raise ToolError(
            f"Invalid regular expression {pattern!r}: {error}. Escape special characters such as "
            "( [ . * + ? with a backslash to match them literally."
        ) from None
    literal = pattern.encode("utf-8") if pattern and not (_REGEX_SPECIALS & set(pattern)) else None
    return line_regex, whole_regex, literal


def _search_file(opener: Callable[[], int], shown: str, state: _Search) -> None:
    caps = state.caps
    data = _read_small(opener, caps.grep_max_file_bytes)
    if data is None:
        state.skipped_large += 1
        return
    if state.literal is not None and state.literal not in data:
        return
    if looks_binary(data):
        return
    text = decode_text(data)
    seconds = state.caps.grep_file_seconds
    deadline = time.monotonic() + seconds
    try:
        limit = {"timeout": seconds} if state.guarded else {}
        if state.literal is None and state.whole_regex.search(text, **limit) is None:
            return
        _search_lines(text, shown, state, deadline)
    except TimeoutError:
        state.too_slow.append(shown)


def _search_lines(text: str, shown: str, state: _Search, deadline: float) -> None:
    caps = state.caps
    in_file = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if number % _STOP_CHECK_LINES == 0 and state.stop.is_set():
            raise Stopped()
        limit = {"timeout": max(deadline - time.monotonic(), 0.001)} if state.guarded else {}
        if state.line_regex.search(line, **limit) is None:
            continue
        in_file += 1
        if in_file <= caps.grep_max_per_file and not state.stopped:
            state.lines.append(f"{shown}:{number}: {clip_line(line.rstrip(chr(13)), caps.grep_line_chars)}")
            state.matches += 1
            state.stopped = state.matches >= caps.grep_max_matches
    if in_file:
        state.files += 1
    hidden = in_file - min(in_file, caps.grep_max_per_file)
    if hidden and not state.stopped:
        state.lines.append(f"{shown}: … {hidden} more matching lines in this file (grep the file itself to see them)")


def _read_small(opener: Callable[[], int], limit: int) -> bytes | None:
    """The bytes of the file ``opener`` opens, ``b""`` when unreadable, ``None`` when over ``limit``.

    Raw os calls and one read for most source files: opening 50 000 files through ``open()``
    and ``stat()`` each costs more than searching them. The walk yields regular files only, opened
    relative to their folder's descriptor; ``O_NONBLOCK`` keeps a FIFO swapped in since from
    blocking the open, and a file that fills the first read is checked to be regular before it is
    read on (a device would never end).
    """
    try:
        descriptor = opener()
    except OSError:
        return b""
    try:
        data = os.read(descriptor, _FIRST_READ)
        if len(data) < _FIRST_READ:
            return data if len(data) <= limit else None
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            return b""
        if status.st_size > limit:
            return None
        chunks = [data]
        size = len(data)
        while chunk := os.read(descriptor, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # grew while being read
                return None
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(descriptor)


def _report(state: _Search, args: GrepArgs, shown: str) -> str:
    notes = []
    if state.stopped:
        notes.append(f"[Stopped after {state.matches} matching lines; narrow the pattern, path or glob to see the rest.]")
    if state.too_slow:
        names = ", ".join(state.too_slow[:3]) + (f" and {len(state.too_slow) - 3} more" if len(state.too_slow) > 3 else "")
        notes.append(
            f"[The pattern took over {state.caps.grep_file_seconds:g} s on {names}, so those files were not searched: it "
            "backtracks catastrophically (nested quantifiers such as (a+)+ or (.*)*). Simplify it.]"
        )
    if state.skipped_large:
        notes.append(
            f"[{state.skipped_large} files over {state.caps.grep_max_file_bytes // 1_000_000} MB were not searched; "
            "use bash (grep) for those.]"
        )
    if not state.lines:
        where = f" in {shown}" + (f" (files matching {args.glob})" if args.glob else "")
        return "\n".join([f"No matches for {args.pattern!r}{where}.", *notes])
    return truncate_head("\n".join(state.lines + notes), state.caps, "Narrow the pattern, path or glob.")
