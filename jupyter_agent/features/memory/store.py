"""Durable facts next to the notebook: ``<notebook stem>.agent/memory/``.

One Markdown file per fact, named by its slug, with a small front matter::

    ---
    summary: Dates in sales.csv are day-first (dd/mm/yyyy)
    updated: 2025-03-01T10:12:00+00:00
    ---
    pd.read_csv("sales.csv", dayfirst=True) parses them; the default reads 03/01 as March 1st.

``MEMORY.md`` is the index the model sees every step: one line per fact, newest first, capped.
The fact files are the truth (a user may edit or delete them by hand); the index is rebuilt from
them after every change. Writes are atomic and secrets are redacted like in session files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.files import atomic_write
from jupyter_agent.model.secrets import Redactor
from jupyter_agent.session.catalog import sessions_folder

INDEX_NAME = "MEMORY.md"
MEMORY_FOLDER = "memory"
# The index rides along in every request. ~3 000 characters (~750 tokens) is under 1 % of a
# 100k window; 40 one-liners is as much as a reader skims. The rest stays readable on demand.
INDEX_MAX_CHARS = 3_000
INDEX_MAX_ENTRIES = 40
# One line of the index: a title, not the fact.
SUMMARY_MAX_CHARS = 120
# A fact is a paragraph, not a document: reading one must stay cheap.
FACT_MAX_CHARS = 4_000
NAME_MAX_CHARS = 60
# "memory.md" and "MEMORY.md" are the same file on case-insensitive file systems.
RESERVED_NAMES = frozenset({"memory"})

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


class MemoryRefused(ValueError, JupyterAgentError):
    """A refused write; the message is written for the model."""


def memory_folder(notebook_path: str | Path) -> Path:
    return sessions_folder(notebook_path) / MEMORY_FOLDER


def slugify(name: str) -> str:
    slug = _NOT_SLUG.sub("-", str(name).lower()).strip("-")
    return slug[:NAME_MAX_CHARS].rstrip("-")


@dataclass(frozen=True)
class MemoryFact:
    name: str
    summary: str
    content: str
    updated: str  # ISO 8601, UTC


@dataclass
class MemoryChange:
    """One write or delete; ``undo()`` puts back what was there (or removes a new fact)."""

    store: "MemoryStore"
    name: str
    before: str | None  # the fact file's text before the change; None: it did not exist
    after: str | None  # its text after; None: deleted

    @property
    def kind(self) -> str:
        return "created" if self.before is None else "deleted" if self.after is None else "updated"

    @property
    def summary(self) -> str:
        return parse_fact(self.name, self.after or self.before or "").summary

    def undo(self) -> bool:
        """``False`` (and nothing touched) when the fact changed again since."""
        if self.store.raw(self.name) != self.after:
            return False
        if self.before is None:
            self.store._remove(self.name)
        else:
            self.store._put(self.name, self.before)
        return True


def parse_fact(name: str, text: str) -> MemoryFact:
    """Lenient: a file without front matter is all content, its first line the summary."""
    meta: dict[str, str] = {}
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            for line in text[4:end].splitlines():
                key, sep, value = line.partition(":")
                if sep:
                    meta[key.strip()] = value.strip()
            body = text[end + 4 :].lstrip("\n")
    content = body.strip()
    summary = meta.get("summary") or (content.splitlines()[0] if content else name)
    return MemoryFact(name=name, summary=_one_line(summary, SUMMARY_MAX_CHARS), content=content, updated=meta.get("updated", ""))


def render_fact(summary: str, content: str, updated: str) -> str:
    return f"---\nsummary: {summary}\nupdated: {updated}\n---\n{content}\n"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class MemoryStore:
    def __init__(self, folder: str | Path, *, clock: Callable[[], str] = _now, redactor: Redactor | None = None) -> None:
        self.folder = Path(folder)
        self._clock = clock
        self._redactor = redactor or Redactor()

    @classmethod
    def for_notebook(
        cls, notebook_path: str | Path, *, clock: Callable[[], str] = _now, redactor: Redactor | None = None
    ) -> "MemoryStore":
        return cls(memory_folder(notebook_path), clock=clock, redactor=redactor)

    @property
    def index_path(self) -> Path:
        return self.folder / INDEX_NAME

    # -- reading -------------------------------------------------------------------------------

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.md") if p.name != INDEX_NAME and slugify(p.stem) == p.stem)

    def list(self) -> list[MemoryFact]:
        """Every fact, most recently updated first."""
        facts = [fact for fact in (self.read(name) for name in self.names()) if fact is not None]
        facts.sort(key=lambda fact: fact.name)
        facts.sort(key=lambda fact: fact.updated, reverse=True)
        return facts

    def read(self, name: str) -> MemoryFact | None:
        text = self.raw(name)
        return None if text is None else parse_fact(slugify(name), text)

    def raw(self, name: str) -> str | None:
        slug = slugify(name)
        if not slug:
            return None
        try:
            return (self.folder / f"{slug}.md").read_text(encoding="utf-8")
        except (FileNotFoundError, IsADirectoryError):
            return None

    def index_text(self) -> str:
        """The capped index: newest facts first, as many as fit, and how many were left out."""
        facts = self.list()
        lines: list[str] = []
        used = 0
        for fact in facts[:INDEX_MAX_ENTRIES]:
            line = f"- {fact.name}: {fact.summary}"
            if used + len(line) + 1 > INDEX_MAX_CHARS:
                break
            lines.append(line)
            used += len(line) + 1
        left_out = len(facts) - len(lines)
        if left_out:
            lines.append(f"- ... {left_out} older fact(s) not listed; `memory` with action list shows all.")
        return "\n".join(lines)

    # -- writing -------------------------------------------------------------------------------

    def write(self, name: str, content: str, summary: str | None = None) -> MemoryChange:
        """Creates or replaces a fact; ``name`` is turned into a slug (``Sales dates`` → ``sales-dates``)."""
        slug = slugify(name)
        if not slug:
            raise MemoryRefused(f"{name!r} is not a usable fact name: use a few words, e.g. 'sales-date-format'.")
        if slug in RESERVED_NAMES:
            raise MemoryRefused(f"The name {slug!r} is reserved for the index; choose another.")
        content = self._redactor.redact(str(content).strip())
        if not content:
            raise MemoryRefused("A fact needs content; to remove one, delete it.")
        if len(content) > FACT_MAX_CHARS:
            raise MemoryRefused(
                f"A fact holds at most {FACT_MAX_CHARS} characters ({len(content)} given): keep the durable point only."
            )
        line = _one_line(self._redactor.redact(summary or content.splitlines()[0]), SUMMARY_MAX_CHARS)
        before = self.raw(slug)
        after = render_fact(line, content, self._clock())
        self._put(slug, after)
        return MemoryChange(self, slug, before, after)

    def delete(self, name: str) -> MemoryChange | None:
        """``None`` when there is no such fact."""
        slug = slugify(name)
        before = self.raw(slug)
        if before is None:
            return None
        self._remove(slug)
        return MemoryChange(self, slug, before, None)

    def _put(self, slug: str, text: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        _write_private(self.folder / f"{slug}.md", text)
        self._write_index()

    def _remove(self, slug: str) -> None:
        (self.folder / f"{slug}.md").unlink(missing_ok=True)
        self._write_index()

    def _write_index(self) -> None:
        body = self.index_text() or "(no facts saved yet)"
        _write_private(self.index_path, f"# Memory\n\n{body}\n")


def _write_private(path: Path, text: str) -> None:
    # Private like the session; a note is replaced whole (never half written), a power cut may lose it.
    atomic_write(path, text.encode("utf-8"), new_mode=0o600, durable=False)


__all__ = [
    "FACT_MAX_CHARS",
    "INDEX_MAX_CHARS",
    "INDEX_MAX_ENTRIES",
    "INDEX_NAME",
    "MemoryChange",
    "MemoryRefused",
    "MemoryFact",
    "MemoryStore",
    "memory_folder",
    "slugify",
]
