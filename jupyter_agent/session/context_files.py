"""Context files for the system prompt: ``AGENTS.md`` / ``CLAUDE.md`` from the notebook up.

Every folder from the workspace root down to the notebook's folder contributes its first
``AGENTS.md`` or ``CLAUDE.md`` (``CLAUDE.md`` is often a copy of ``AGENTS.md``, so one per folder).
The result is ordered root first, nearest last, so the most specific instructions come last.
A context file goes to the provider, so the workspace boundary holds: a file (or symlink) whose
real path lies outside the searched folders' root is skipped, and so is anything not a regular file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
# One runaway file must not crowd out the rest of the prompt.
MAX_FILE_CHARS = 20_000
# All context files together stay a small share of a 128k-token window.
MAX_TOTAL_CHARS = 60_000


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str
    truncated: bool = False


def find_context_files(
    start: str | Path,
    workspace_root: str | Path | None = None,
    *,
    names: tuple[str, ...] = CONTEXT_FILE_NAMES,
    max_file_chars: int = MAX_FILE_CHARS,
    max_total_chars: int = MAX_TOTAL_CHARS,
) -> list[ContextFile]:
    """Context files from ``start`` (a folder or the notebook file) up to ``workspace_root``.

    Without ``workspace_root`` the search stops at the nearest folder holding ``.git``, or at
    ``start`` itself when there is none. When the total exceeds ``max_total_chars`` the farthest
    files are cut first.
    """
    found: list[ContextFile] = []  # nearest first while collecting
    budget = max_total_chars
    folders = _folders(Path(start), workspace_root)
    boundary = folders[-1]
    for folder in folders:
        if budget <= 0:
            break
        limit = min(max_file_chars, budget)
        context_file = _read_first(folder, names, limit, boundary)
        if context_file is not None:
            found.append(context_file)
            budget -= min(len(context_file.text), limit)  # the truncation note is not charged
    found.reverse()
    return found


def context_prompt(files: list[ContextFile]) -> str:
    """The files as one system-prompt section; empty when there are none."""
    if not files:
        return ""
    parts = ["# Project instructions (from context files; later ones are more specific)"]
    for context_file in files:
        parts.append(f"## {context_file.path}\n\n{context_file.text.rstrip()}")
    return "\n\n".join(parts) + "\n"


def _folders(start: Path, workspace_root: str | Path | None) -> list[Path]:
    start = start.resolve()
    if start.is_file() or not start.exists():
        start = start.parent
    chain = [start, *start.parents]
    if workspace_root is None:
        stop = next((index for index, folder in enumerate(chain) if (folder / ".git").exists()), 0)
        return chain[: stop + 1]
    root = Path(workspace_root).resolve()
    if root not in chain:
        return [start]  # a notebook outside the workspace gets only its own folder's files
    return chain[: chain.index(root) + 1]


def _read_first(folder: Path, names: tuple[str, ...], limit: int, boundary: Path) -> ContextFile | None:
    for name in names:
        path = folder / name
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # missing, or a symlink loop
            continue
        if not real.is_relative_to(boundary) or not real.is_file():
            continue  # e.g. AGENTS.md -> ~/.aws/credentials
        try:
            with open(real, encoding="utf-8", errors="replace") as handle:
                text = handle.read(limit + 1)
                rest = 0
                while len(text) > limit and (chunk := handle.read(1 << 16)):
                    rest += len(chunk)  # counted, not kept: a runaway file costs no memory
        except OSError:
            continue
        if "\0" in text:
            continue  # not a text file
        if len(text) <= limit:
            return ContextFile(path, text)
        note = f"\n[… truncated: {len(text) + rest - limit} more characters in {path}]\n"
        return ContextFile(path, text[:limit] + note, truncated=True)
    return None


__all__ = ["CONTEXT_FILE_NAMES", "ContextFile", "context_prompt", "find_context_files"]
