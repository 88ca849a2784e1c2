"""Sessions follow their notebook: renamed or moved in JupyterLab, adopted by hand elsewhere.

The lab extension tells the kernel where its notebook is (``notebook_moved``: when it connects,
and when the notebook is renamed or moved). ``Old.agent/`` then becomes ``New.agent/``; when the
old notebook is still there (Save As), the sessions are copied, so neither notebook loses them.
A turn still running finishes first. Without the extension a kernel restarted after a rename
looks for ``New.agent/``, finds nothing, and its first turn says where this kernel kept its
sessions before (a note in the Jupyter runtime folder, per kernel) and how to bring them over:
``%agent sessions --adopt Old.agent``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from IPython.core.error import UsageError

from jupyter_agent.notebook.report import Report
from jupyter_agent.session import list_sessions, sessions_folder
from jupyter_agent.session.index_file import INDEX_SUFFIX

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.session_manager import SessionManager
    from jupyter_agent.runtime.permissions import Trust

LOCK_SUFFIX = ".lock"
SESSION_SUFFIX = ".jsonl"
_noted: set[Path] = set()  # folders whose "your sessions are elsewhere" note was shown


def follow_notebook(manager: SessionManager, path: str, previous: str | None) -> str:
    """The extension says the notebook is at ``path`` (server-relative; it was at ``previous``)."""
    current = manager.notebook
    known = current or Path.cwd() / Path(previous or path).name
    root = _root(known, Path(previous or path))
    new = root / path
    old = root / previous if previous else known
    if new == (current or new):
        return f"The notebook is {new}."
    if not _beside_notebook(manager):
        manager.moved_to = new
        return f"The notebook is {new}; its sessions stay in {manager.folder} (AgentMagics.session_dir)."
    turns = _running(manager, sessions_folder(old))
    if turns:
        asyncio.ensure_future(_after(turns, lambda: _move(manager, old, new)))
        return f"The notebook moved to {new}: its sessions follow once the running turn ends."
    return _move(manager, old, new)


def adopt_report(magics: AgentMagics, old: str) -> Report:
    """``%agent sessions --adopt OLD.agent``: OLD's sessions join this notebook's (copied when OLD's
    notebook still exists, else moved); a session of the same name here is left alone and the
    adopted one takes the first free name (the turn that said where OLD is made a ``main`` here)."""
    manager = magics.sessions
    base = manager.notebook.parent if manager.notebook is not None else Path.cwd()
    source = (base / Path(old).expanduser()).resolve()
    target = manager.folder
    if not source.is_dir() or not source.name.endswith(".agent"):
        raise UsageError(f"{old} is not a sessions folder (a folder NAME.agent beside a notebook)")
    if source == target.resolve():
        raise UsageError(f"{old} is already this notebook's sessions folder")
    if _running(manager, source):
        raise UsageError(f"a turn of a session in {source} is running: adopt it when it has ended")
    _close(manager, source)
    copied = _notebook_of(source).exists()
    renamed = _free_names(source, manager)
    taken, kept = _transfer(source, target, copy=copied, renamed=renamed)
    verb = "Copied" if copied else "Moved"
    text = f"{verb} {len(taken)} item(s) from {source} to {target}" + (f": {', '.join(taken)}" if taken else "") + "."
    for name, free in renamed.items():
        if free != name:
            text += f" Session {name} is here already: the adopted one is {free} (continue it with -s {free})."
    if kept:
        text += f" Left in {source} (the same name is here already): {', '.join(kept)}."
    return Report(text, text)


def moved_sessions_note(folder: Path) -> str:
    """Said by a kernel's first turn when ``folder`` does not exist but this kernel kept its sessions
    elsewhere before (the notebook was renamed without the extension); empty otherwise."""
    record = _kernel_record()
    if record is None or folder in _noted:
        return ""
    _noted.add(folder)
    earlier = _read_record(record)
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"folder": str(folder)}), encoding="utf-8")
    except OSError:
        pass  # only the note after a later rename is lost
    if folder.exists() or earlier is None or earlier == folder or not earlier.is_dir():
        return ""
    return (
        f"This notebook has no sessions in {folder.name}/ yet, but this kernel kept its sessions in {earlier} before "
        f"(was the notebook renamed?): %agent sessions --adopt {os.path.relpath(earlier, folder.parent)} brings them here."
    )


def _move(manager: SessionManager, old: Path, new: Path) -> str:
    source, target = sessions_folder(old), sessions_folder(new)
    manager.moved_to = new
    if not source.is_dir():
        return f"The notebook moved to {new}; it has no sessions yet."
    if target.exists():
        return (
            f"The notebook moved to {new}, but {target} already exists: the sessions stay in {source} "
            f"(%agent sessions --adopt {source.name} brings them over)."
        )
    carried = _close(manager, source)
    copied = old.exists()  # another notebook still uses the old name (Save As): both keep the sessions
    _transfer(source, target, copy=copied)
    for name, (trust, model_name) in carried.items():
        session = manager.get(name)  # reopened at its new place, with the trust granted so far
        session.trust, session.model_name = trust, model_name
    return f"{'Copied' if copied else 'Moved'} the sessions from {source} to {target}."


def _free_names(source: Path, manager: SessionManager) -> dict[str, str]:
    """Every session of ``source`` with the name it takes in this notebook's folder: its own, or
    the first free ``NAME-2``, ``NAME-3``… when a session here has that name already."""
    target = manager.folder
    names = sorted(info.name for info in list_sessions(source))
    used = {path.stem for path in target.glob(f"*{SESSION_SUFFIX}")} | {path.stem for path in manager.sessions} | set(names)
    chosen = {}
    for name in names:
        free = name
        if (target / f"{name}{SESSION_SUFFIX}").exists() or target / f"{name}{SESSION_SUFFIX}" in manager.sessions:
            free = next(f"{name}-{number}" for number in itertools.count(2) if f"{name}-{number}" not in used)
            used.add(free)
        chosen[name] = free
    return chosen


def _transfer(source: Path, target: Path, *, copy: bool, renamed: dict[str, str] | None = None) -> tuple[list[str], list[str]]:
    """Moves (or copies) what ``source`` holds into ``target``; ``renamed``: each session's name there."""
    target.mkdir(parents=True, exist_ok=True)
    taken, kept = [], []
    for entry in sorted(source.iterdir()):
        if entry.name.endswith(LOCK_SUFFIX):
            continue  # a lock belongs to the file it locked
        destination = target / _renamed(entry.name, renamed or {})
        # A session file's index (``<session>.index``) follows it as its other side files do, but
        # is no item of its own: a cache of the file. One already there is a stale cache (the
        # session files take free names): replaced.
        index = entry.suffix == INDEX_SUFFIX and entry.is_file()
        if destination.exists() and not index:
            kept.append(entry.name)
            continue
        if copy:
            (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, destination)
        else:
            shutil.move(str(entry), str(destination))
        if not index:
            taken.append(destination.name)
    if not copy and not kept:
        for lock in source.glob(f"*{LOCK_SUFFIX}"):
            lock.unlink(missing_ok=True)
        try:
            source.rmdir()
        except OSError:
            pass  # something new appeared there: leave it
    return taken, kept


def _renamed(entry: str, names: dict[str, str]) -> str:
    """``entry``'s name in the target: a session's files (``main.jsonl``, ``main.plan.json``,
    ``main.snapshots``…) follow it, the longest session name deciding (``main.v2`` is a session too)."""
    owners = [name for name in names if entry.startswith(f"{name}.")]
    if not owners:
        return entry
    owner = max(owners, key=len)
    return names[owner] + entry[len(owner) :]


def _close(manager: SessionManager, folder: Path) -> dict[str, tuple[Trust, str | None]]:
    """Closes this kernel's open sessions in ``folder``; returns what each had granted."""
    carried = {}
    for path, session in list(manager.sessions.items()):
        if path.parent.resolve() == folder.resolve():
            carried[session.name] = (session.trust, session.model_name)
            session.store.close()
            del manager.sessions[path]
    return carried


def _running(manager: SessionManager, folder: Path) -> list[asyncio.Task[None]]:
    return [
        task
        for path, session in manager.sessions.items()
        if path.parent.resolve() == folder.resolve()
        for task in session.pending_tasks()
    ]


async def _after(tasks: list[asyncio.Task[None]], then: Callable[[], object]) -> None:
    await asyncio.wait(tasks)
    then()


def _root(known: Path, relative: Path) -> Path:
    """The server's root: ``known`` (absolute) without the server-relative ``relative``."""
    parts = relative.parts
    if len(parts) <= len(known.parts) and known.parts[-len(parts) :] == parts:
        return Path(*known.parts[: -len(parts)])
    return known.parent


def _beside_notebook(manager: SessionManager) -> bool:
    return manager.chosen_folder is None and not manager.configured_folder()


def _notebook_of(folder: Path) -> Path:
    return folder.with_name(folder.name[: -len(".agent")] + ".ipynb")


def _kernel_record() -> Path | None:
    """This kernel's note in the Jupyter runtime folder (its id survives a restart), or None outside a kernel."""
    try:
        from ipykernel.connect import get_connection_file
        from jupyter_core.paths import jupyter_runtime_dir

        kernel = Path(get_connection_file()).stem  # kernel-<id>
    except Exception:  # noqa: BLE001 - no kernel (terminal IPython): nothing to remember
        return None
    return Path(jupyter_runtime_dir()) / f"jupyter-agent-{kernel}.json"


def _read_record(record: Path) -> Path | None:
    try:
        folder = json.loads(record.read_text(encoding="utf-8")).get("folder")
    except (OSError, ValueError, AttributeError):
        return None
    return Path(folder) if isinstance(folder, str) else None


__all__ = ["adopt_report", "follow_notebook", "moved_sessions_note"]
