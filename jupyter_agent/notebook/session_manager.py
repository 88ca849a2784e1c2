"""Per-notebook agent sessions: where they live, which one is current, one writer each.

A session belongs to a notebook file and a name (``main`` by default). Its transcript lives in
``<notebook>.agent/<name>.jsonl`` beside the notebook and is resumed by the next ``%%agent``
cell, after a kernel restart too. Each session keeps, for the life of the kernel, its permission
trust (``Allow <tool> for this session``; each run gets a policy of its own over it), the files
the agent has read, and a FIFO lock so its turns run one at a time in the order their cells ran.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping

from jupyter_agent.errors import UserFacingError

if TYPE_CHECKING:
    from jupyter_agent.notebook.runner import Turn
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision, Trust
    from jupyter_agent.session import SessionStore, SnapshotStore
    from jupyter_agent.tools.read_tracker import ReadTracker

DEFAULT_SESSION = "main"
PAPERMILL_INPUT = "PAPERMILL_INPUT_PATH"
# Remembers which session ``--new``/``--branch`` made current, so a restart resumes that one.
CURRENT_FILE = "current"
_VALID_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class SessionNameError(ValueError, UserFacingError):
    pass


def check_session_name(name: str) -> str:
    if not _VALID_NAME.match(name) or name.endswith(".jsonl"):
        raise SessionNameError(f"invalid session name {name!r}: use letters, digits, '-', '_' or '.', up to 64 characters")
    return name


def notebook_path(user_ns: Mapping[str, object], env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Path | None:
    """The notebook this kernel serves, from whoever runs it; None if unknown.

    The Jupyter server (and any runner that sets it) passes ``JPY_SESSION_NAME``, which ipykernel
    also puts in ``__session__``; VS Code sets ``__vsc_ipynb_file__``; papermill passes
    ``PAPERMILL_INPUT_PATH`` as a parameter with ``--inject-input-path`` (or ``--inject-paths``).
    nbclient and nbconvert pass nothing but the working folder.
    """
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    for candidate in (
        env.get("JPY_SESSION_NAME"),
        user_ns.get("__session__"),
        user_ns.get("__vsc_ipynb_file__"),
        user_ns.get(PAPERMILL_INPUT),
    ):
        if not candidate or not isinstance(candidate, str):
            continue
        path = Path(candidate).expanduser()
        if path.is_absolute():
            return path
        if (cwd / path).is_file():
            return cwd / path  # relative to the runner's folder, which the kernel shares
        # A server-relative path: the server starts the kernel in the notebook's folder.
        return cwd / path.name
    return None


def new_trust() -> Trust:
    """An empty trust, imported when the first session opens (the runtime is not %load_ext's to import)."""
    from jupyter_agent.runtime.permissions import Trust

    return Trust()


@dataclass
class AgentSession:
    name: str
    path: Path  # the .jsonl file
    notebook: Path | None
    workspace: Path
    store: SessionStore  # opened (and locked) on first use
    read_tracker: ReadTracker
    snapshots: SnapshotStore
    trust: Trust = field(default_factory=new_trust)  # "allow for this session", kept across turns
    model_name: str | None = None  # set by `%agent model NAME`
    turns: list[Turn] = field(default_factory=list)  # queued and running
    # Another place that may decide an approval (the lab extension's inline review of a notebook
    # edit): given the request, an awaitable decision, or None when it has no say in it. Each run's
    # policy asks it beside the turn's renderer (``PermissionPolicy.reviewer``).
    reviewer: Callable[[ApprovalRequest], Awaitable[Decision] | None] | None = None
    _lock: asyncio.Lock | None = None

    @property
    def lock(self) -> asyncio.Lock:
        # Created on first use, on the loop that runs the turns (asyncio.Lock is FIFO).
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def pending_tasks(self) -> list[asyncio.Task[None]]:
        return [turn.task for turn in self.turns if turn.task is not None and not turn.task.done()]

    def add_turn(self, turn: Turn) -> None:
        self.turns = [known for known in self.turns if known.task is None or not known.task.done()]
        self.turns.append(turn)


class SessionManager:
    """The sessions of one kernel; stores stay open (and locked) for the kernel's life."""

    def __init__(
        self,
        user_ns: Mapping[str, object],
        *,
        workspace_for: Callable[[Path], Path],
        env: Mapping[str, str] | None = None,
        configured_folder: Callable[[], str] = str,
    ) -> None:
        self.user_ns = user_ns
        self.env = env
        self.workspace_for = workspace_for
        self.configured_folder = configured_folder  # AgentMagics.session_dir; empty: beside the notebook
        self.chosen_folder: Path | None = None  # set by `%agent session-file PATH`; wins over the rest
        self.sessions: dict[Path, AgentSession] = {}
        self.last_used: str | None = None  # the session of the latest %%agent cell in this kernel
        # Where the notebook is now, when the lab extension said it moved (the kernel's own
        # JPY_SESSION_NAME keeps the path it was started with until it restarts).
        self.moved_to: Path | None = None
        self.reviewer: Callable[[ApprovalRequest], Awaitable[Decision] | None] | None = None  # every session's

    @property
    def notebook(self) -> Path | None:
        return self.moved_to or notebook_path(self.user_ns, self.env)

    @property
    def folder(self) -> Path:
        """``analysis.agent/`` beside the notebook; ``ipython.agent/`` in the working folder without one;
        the folder ``%agent session-file`` or ``AgentMagics.session_dir`` chose, over both."""
        if self.chosen_folder is not None:
            return self.chosen_folder
        configured = self.configured_folder()
        if configured:
            return Path(configured).expanduser().resolve()
        from jupyter_agent.session import sessions_folder

        return sessions_folder(self._anchor())

    @property
    def location_known(self) -> bool:
        """False when sessions fall back to ``ipython.agent/``, which every notebook of the folder shares."""
        return self.chosen_folder is not None or bool(self.configured_folder()) or self.notebook is not None

    def choose_file(self, path: Path) -> AgentSession:
        """``%agent session-file PATH``: this kernel's sessions go to PATH's folder, PATH's session current."""
        if path.suffix != ".jsonl":
            raise SessionNameError(f"a session file ends in .jsonl, got {str(path)!r}")
        name = check_session_name(path.stem)
        self.chosen_folder = path.expanduser().resolve().parent
        self.set_current(name)
        self.last_used = name
        return self.get(name)

    def _path(self, name: str) -> Path:
        from jupyter_agent.session import session_path

        return self.folder / session_path(self._anchor(), name).name  # session_path checks the name

    def _anchor(self) -> Path:
        return self.notebook or Path.cwd() / "ipython"

    def current_name(self) -> str:
        try:
            name = (self.folder / CURRENT_FILE).read_text(encoding="utf-8").strip()
            return check_session_name(name)
        except (OSError, SessionNameError):
            return DEFAULT_SESSION

    def set_current(self, name: str) -> None:
        folder = self.folder
        folder.mkdir(parents=True, exist_ok=True)
        (folder / CURRENT_FILE).write_text(name + "\n", encoding="utf-8")

    def likely_next(self) -> Path | None:
        """The session file the next turn most likely continues: the newest one this notebook's
        folder holds (the latest session written; a restarted kernel's user goes on with it)."""
        try:
            files = [(path.stat().st_mtime_ns, path) for path in self.folder.glob("*.jsonl")]
        except OSError:
            return None
        return max(files)[1] if files else None

    def get(self, name: str | None = None) -> AgentSession:
        from jupyter_agent.session import SessionStore

        name = check_session_name(name or self.current_name())
        path = self._path(name)
        session = self.sessions.get(path)
        if session is None:
            notebook_dir = self.notebook.parent if self.notebook else Path.cwd()
            from jupyter_agent.tools.read_tracker import ReadTracker

            store = SessionStore(path)
            if path.exists():
                store.claim()  # another kernel writing this session is refused now, not mid-turn
            session = AgentSession(
                name=name,
                path=path,
                notebook=self.notebook,
                workspace=self.workspace_for(notebook_dir),
                store=store,
                read_tracker=ReadTracker(),
                snapshots=store.snapshots(),
                reviewer=lambda request: self.reviewer(request) if self.reviewer is not None else None,
            )
            self.sessions[path] = session
        return session

    def recent(self) -> AgentSession:
        """What ``%agent`` subcommands act on: the latest turn's session, else the current one."""
        return self.get(self.last_used)

    def new_name(self, base: str) -> str:
        """The first free ``base-2``, ``base-3``… (``--new`` never overwrites a transcript)."""
        for number in range(2, 10_000):
            name = f"{base}-{number}"
            if not self._path(name).exists() and self._path(name) not in self.sessions:
                return name
        raise SessionNameError(f"no free session name for {base!r}")

    def start_new(self, base: str | None = None) -> AgentSession:
        name = self.new_name(check_session_name(base or DEFAULT_SESSION))
        self.set_current(name)
        return self.get(name)

    def branch(self, source: AgentSession, name: str) -> AgentSession:
        """Forks ``source`` into session ``name`` (which must not exist) and makes it current."""
        path = self._path(check_session_name(name))
        if path.exists() or path in self.sessions:
            raise SessionNameError(f"session {name!r} already exists: continue it with -s {name}")
        if source.store.tip is None:
            raise SessionNameError(f"session {source.name!r} has nothing to branch from yet")
        from jupyter_agent.features.plan.file import PlanFile

        forked = source.store.fork(path)
        forked.close()  # reopened (and locked) by get()
        plan = PlanFile(source.path)
        if plan.path.exists():
            plan.copy_to(path)  # the branch continues the same task
        self.set_current(name)
        return self.get(name)

    def close(self) -> None:
        for session in self.sessions.values():
            try:
                session.store.close()
            except Exception:  # noqa: BLE001 - closing at unload must not fail the unload
                pass
        self.sessions.clear()
