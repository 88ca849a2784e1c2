"""Undo snapshots: the files an agent step changed, before and after, kept beside the session.

``capture(step, path)`` runs before every mutating file tool and keeps the path's prior content
(or its absence) once per step; ``settle()`` (at the step's end) records what the agent left.
``undo`` puts a step's files back only if they still hold what the agent left — otherwise it
reports the conflicts and changes nothing. Layout: ``<session>.snapshots/NNNNN.json`` (one
manifest per step, in order) and ``blobs/<sha256>`` (file contents, shared between steps).
Snapshots often hold secrets (an edited ``.env``): the folders are 0700, each blob keeps its
source's permissions (the strictest, when files share content) and undo restores the mode too.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.files import atomic_write

# A snapshot is a full copy: a bigger file is not kept, and undo refuses the step instead.
MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Conflict:
    path: Path
    reason: str


@dataclass
class UndoResult:
    step: int | None
    restored: list[Path] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.conflicts


@dataclass(frozen=True)
class SnapshotStep:
    seq: int  # position in the session's undo history, from 1
    step: int  # the run's step number, as given to ``capture``
    undone: bool
    paths: list[Path]


@dataclass(frozen=True)
class FileChange:
    path: Path
    status: str  # "created" | "modified" | "deleted"
    diff: str  # unified diff, or a one-line note for binary files


class SnapshotStore:
    """The undo history of one session; the folder is created on the first capture."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).absolute()
        self._entries = [_read_json(path) for path in sorted(self.folder.glob("*.json"))]

    def capture(self, step: int, path: str | Path) -> None:
        """Keeps ``path``'s content (or absence) as it is before ``step`` changes it."""
        key = os.path.abspath(path)
        entry = self._open_entry(step)
        if key in entry["files"]:
            return  # only the state before the step's first change counts
        entry["files"][key] = {"before": self._keep(Path(key)), "after": None}
        self._save(entry)

    def mark(self, step: int) -> int:
        """The seq of ``step``'s entry, made if needed: for changes kept elsewhere (the kernel's
        namespace), so that one undo restores them with the step's files."""
        entry = self._open_entry(step)
        if not os.path.exists(self.folder / f"{entry['seq']:05d}.json"):
            self._save(entry)
        return entry["seq"]

    def find(self, step: int | None = None, also: Collection[int] = ()) -> SnapshotStep:
        """The entry ``undo(step)`` restores; ``also``: seqs that have changes kept elsewhere.

        Raises ``ValueError`` ("nothing to undo", "no step N to undo") when there is none."""
        entry = self._find(step, also)
        return SnapshotStep(entry["seq"], entry["step"], entry["undone"], [Path(p) for p in entry["files"]])

    def settle(self) -> None:
        """Records what the agent left for every step not settled yet."""
        for entry in self._entries:
            if not entry["settled"]:
                for key, states in entry["files"].items():
                    states["after"] = self._keep(Path(key))
                entry["settled"] = True
                self._save(entry)

    def steps(self) -> list[SnapshotStep]:
        """Every captured step, oldest first."""
        return [SnapshotStep(e["seq"], e["step"], e["undone"], [Path(p) for p in e["files"]]) for e in self._entries]

    def undo(self, step: int | None = None, *, seq: int | None = None) -> UndoResult:
        """Restores the latest step that changed files (or the latest step numbered ``step``, or
        the entry ``seq`` from ``find``) not undone yet."""
        self.settle()
        entry = self._entries[seq - 1] if seq is not None else self._find(step)
        if entry["undone"]:
            raise ValueError(f"step {entry['step']} is undone already")
        result = UndoResult(step=entry["step"])
        # A call that left a file as it was (refused, failed) has nothing to restore.
        changed = {key: states for key, states in entry["files"].items() if _changed(states)}
        for key, states in changed.items():
            reason = self._conflict(Path(key), states)
            if reason:
                result.conflicts.append(Conflict(Path(key), reason))
        if result.conflicts:
            return result
        for key, states in changed.items():
            self._restore(Path(key), states["before"])
            result.restored.append(Path(key))
        entry["undone"] = True
        self._save(entry)
        return result

    def diff(self, step: int | None = None) -> list[FileChange]:
        """What the agent changed (steps not undone, or only ``step``): one unified diff per file."""
        entries = [e for e in self._entries if not e["undone"] and (step is None or e["step"] == step)]
        first: dict[str, dict] = {}
        last: dict[str, dict] = {}
        for entry in entries:
            for key, states in entry["files"].items():
                first.setdefault(key, states["before"])
                last[key] = states["after"] if entry["settled"] else self._keep(Path(key))
        changes = [self._change(Path(key), first[key], last[key]) for key in first]
        return [change for change in changes if change is not None]

    # -- internals -----------------------------------------------------------------------------

    def _open_entry(self, step: int) -> dict:
        entry = self._entries[-1] if self._entries else None
        if entry is None or entry["settled"] or entry["step"] != step:
            self.settle()  # a new step starts: earlier steps are over
            entry = {"seq": len(self._entries) + 1, "step": step, "settled": False, "undone": False, "files": {}}
            self._entries.append(entry)
        return entry

    def _find(self, step: int | None, also: Collection[int] = ()) -> dict:
        for entry in reversed(self._entries):
            if entry["undone"]:
                continue
            if entry["step"] == step or (step is None and (entry["seq"] in also or any(map(_changed, entry["files"].values())))):
                return entry
        raise ValueError("nothing to undo" if step is None else f"no step {step} to undo")

    def _state(self, path: Path, keep: bool = False) -> dict:
        if not os.path.lexists(path):
            return {"exists": False}
        if not path.is_file():
            return {"exists": True, "skipped": "not a regular file"}
        if path.stat().st_size > MAX_SNAPSHOT_BYTES:
            return {"exists": True, "skipped": f"larger than {MAX_SNAPSHOT_BYTES} bytes"}
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        mode = path.stat().st_mode & 0o7777
        if keep:
            self._store_blob(digest, data, mode)
        return {"exists": True, "sha256": digest, "mode": mode}

    def _keep(self, path: Path) -> dict:
        return self._state(path, keep=True)

    def _conflict(self, path: Path, states: dict) -> str | None:
        before, after = states["before"], states["after"]
        if "skipped" in before or "skipped" in after:
            return f"not snapshotted ({before.get('skipped') or after.get('skipped')})"
        if not _same(self._state(path), after):
            return "changed since the agent's step" if after["exists"] else "created since the agent deleted it"
        return None

    def _restore(self, path: Path, before: dict) -> None:
        if not before["exists"]:
            path.unlink(missing_ok=True)  # the agent created it
            return
        data = (self.folder / "blobs" / before["sha256"]).read_bytes()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.write_bytes(data)  # keep the link, restore its target
        else:
            atomic_write(path, data, mode=before.get("mode"), durable=False)

    def _change(self, path: Path, before: dict, after: dict) -> FileChange | None:
        if _same(before, after) or "skipped" in before or "skipped" in after:
            return None
        status = "created" if not before["exists"] else "deleted" if not after["exists"] else "modified"
        old, new = self._text(before), self._text(after)
        if old is None or new is None:
            return FileChange(path, status, f"Binary file {path} {status}\n")
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile="/dev/null" if status == "created" else f"a/{path}",
            tofile="/dev/null" if status == "deleted" else f"b/{path}",
        )
        return FileChange(path, status, "".join(line if line.endswith("\n") else line + "\n" for line in lines))

    def _text(self, state: dict) -> str | None:
        if not state["exists"]:
            return ""
        blob = self.folder / "blobs" / state["sha256"]
        data = blob.read_bytes() if blob.exists() else b""
        if b"\0" in data:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _store_blob(self, digest: str, data: bytes, mode: int) -> None:
        blob = self.folder / "blobs" / digest
        _private_folder(self.folder)
        _private_folder(blob.parent)
        if blob.exists():
            shared = blob.stat().st_mode & 0o7777
            if shared & ~mode:  # the same content from a stricter file: nobody may read more
                os.chmod(blob, shared & mode)
            return
        atomic_write(blob, data, mode=mode, durable=False)

    def _save(self, entry: dict) -> None:
        _private_folder(self.folder)
        atomic_write(self.folder / f"{entry['seq']:05d}.json", json.dumps(entry, indent=1).encode(), mode=0o600, durable=False)


def _changed(states: dict) -> bool:
    # A file too large to snapshot may have changed: undo must report it, not skip it.
    before, after = states["before"], states["after"]
    return not _same(before, after) or "skipped" in before or "skipped" in after


def _same(one: dict | None, other: dict | None) -> bool:
    """Same content (or the same absence); the mode is restored, not compared."""

    def content(state: dict | None) -> dict | None:
        return None if state is None else {key: value for key, value in state.items() if key != "mode"}

    return content(one) == content(other)


def _private_folder(folder: Path) -> None:
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        os.chmod(folder, 0o700)  # also tightens a folder an earlier version left open


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


__all__ = ["Conflict", "FileChange", "MAX_SNAPSHOT_BYTES", "SnapshotStep", "SnapshotStore", "UndoResult"]
