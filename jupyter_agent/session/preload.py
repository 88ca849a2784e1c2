"""A session read ahead of its first use.

After a restart, the first turn of a long session used to parse the whole file while the user
waited (20 000 messages: a quarter of that turn's own time). The kernel's warm-up thread now reads
the session its next turn most likely continues (``preload_session``) while the user is still
reading the notebook; the first writer's store that opens the file takes that reading
(``take_preloaded``) when the file and its index are unchanged since, and reads the file itself
otherwise. A reading nobody takes is dropped after ``KEEP_SECONDS``.
"""

from __future__ import annotations

import operator
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_agent.model.tokens import estimate_history_tokens
from jupyter_agent.session.index_file import index_path
from jupyter_agent.session.loading import LoadedSession, load_session

if TYPE_CHECKING:
    from jupyter_agent.messages import Message

# Why 10 minutes: long enough for the cells above the first agent cell to run, short enough that a
# kernel that never runs one does not keep a long session's records for the rest of the day.
KEEP_SECONDS = 600.0
# Why 30 s: a store opened while the reading is under way waits for it (the same work it would do
# itself), never for a reading that hangs on a broken disk.
WAIT_SECONDS = 30.0

# Makes what the next turn derives from the histories it most likely sends (``continued``).
Prepare = Callable[[list[list["Message"]]], object]

Signature = tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]


@dataclass
class _Reading:
    signature: Signature
    done: threading.Event = field(default_factory=threading.Event)
    loaded: LoadedSession | None = None


_lock = threading.Lock()
_readings: dict[Path, _Reading] = {}


def _signature(path: Path) -> Signature:
    """What tells the session file and its index apart from any later state of them."""
    return _stat(path), _stat(index_path(path))


def preload_session(path: Path, prepare: Prepare | None = None) -> bool:
    """Reads the session at ``path`` (every record of its active branch) in the calling thread, for
    the next store that opens it; True when the reading is kept. ``prepare``: called once, before the
    reading is handed over, with the histories the next turn most likely sends (``continued``: the
    objects the store will hand out), to make what the turn derives from them (its request:
    ``notebook/request_ahead``); its failure costs the turn that work, nothing else."""
    path = path.absolute()
    signature = _signature(path)
    if signature[0] is None:
        return False  # no session yet: nothing to read ahead
    reading = _Reading(signature)
    with _lock:
        if path in _readings:
            return False
        _readings[path] = reading
    try:
        histories = _read(path, signature, reading)
        if reading.loaded is not None and prepare is not None:
            _prepare(prepare, histories)
    finally:
        reading.done.set()
    if reading.loaded is None:
        _forget(path, reading)
        return False
    timer = threading.Timer(KEEP_SECONDS, _forget, (path, reading))
    timer.daemon = True
    timer.start()
    return True


def _read(path: Path, signature: Signature, reading: _Reading) -> list[list[Message]]:
    """The histories the next turn most likely sends (``continued``), the reading kept in
    ``reading`` when the file did not change meanwhile."""
    try:
        loaded = load_session(path)
        histories = continued(loaded)  # every line parsed now, not by the first turn
        # The estimate of the messages the turn will send (kept per message object and list: the
        # store hands out these ones), which its window and continuation note sum up.
        for history in histories:
            estimate_history_tokens(history)
    except Exception:  # noqa: BLE001 - the store that opens the file reads it itself and reports what is wrong
        return []
    if _signature(path) == signature:  # not a file another writer was appending to meanwhile
        reading.loaded = loaded
    return histories


def continued(loaded: LoadedSession) -> list[list[Message]]:
    """The histories the next turn most likely sends: the branch's (a new cell's turn continues it)
    and, when it has turns, the branch before its last turn (that turn's cell run again) and before
    its first cell's turn (the notebook run again from the top, as after a restart): a re-run cell
    branches the session just before its earlier turn."""
    branch = loaded.index.branch
    messages = branch.messages()
    histories = [messages]
    spans = branch.turns()  # kept on the branch: the turn that takes this reading asks for them again
    redone = {len(spans) - 1} if spans else set()  # the turn a re-run cell replaces, with those after it
    first_cell = next((index for index, span in enumerate(spans) if span.cell is not None), None)
    if first_cell is not None:
        redone.add(first_cell)
    for index in sorted(redone, reverse=True):
        turns = [message for span in spans[index:] for message in span.messages]
        tail = messages[len(messages) - len(turns) :] if turns else []
        # Their messages are the view's last ones (no compaction summarized them): the view before them.
        if turns and len(turns) < len(messages) and all(map(operator.is_, tail, turns)):
            histories.append(messages[: len(messages) - len(turns)])
    return histories


def _prepare(prepare: Prepare, histories: list[list[Message]]) -> None:
    try:
        prepare(histories)
    except Exception:  # noqa: BLE001 - the turn makes what was not made ahead itself
        pass


def take_preloaded(path: Path) -> LoadedSession | None:
    """The reading of ``path`` made ahead, if the file and its index are as they were then; once."""
    path = path.absolute()
    with _lock:
        reading = _readings.get(path)
    if reading is None:
        return None
    reading.done.wait(WAIT_SECONDS)
    _forget(path, reading)
    if reading.loaded is None or _signature(path) != reading.signature:
        return None
    return reading.loaded


def _forget(path: Path, reading: _Reading) -> None:
    with _lock:
        if _readings.get(path) is reading:
            del _readings[path]


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


__all__ = ["KEEP_SECONDS", "WAIT_SECONDS", "Prepare", "continued", "preload_session", "take_preloaded"]
