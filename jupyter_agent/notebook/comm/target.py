"""``AgentCommTarget``: the kernel end of the extension's comms.

Each JupyterLab notebook panel opens its own comm (``hello`` → ``welcome``). The kernel keeps the
open ones, answers their requests through the ``AgentCommHandler`` that the notebook integration
provides, and broadcasts run state and materialize payloads to all of them.

Discovery: a frontend must not open a comm on a kernel that lacks the target (the kernel logs an
error for each such open). So the kernel keeps one silent "beacon" comm of the target, which is
never announced: a frontend's ``comm_info_request`` lists it, and that is how the extension learns
that ``%load_ext jupyter_agent`` ran, after a page reload too.

Threads: JupyterLab ≥ 4.4 sends comm messages over a kernel subshell, so the callbacks below may
run on a subshell thread. Everything they do is handed to the kernel's event loop, where the
agent lives, except the inline completions' ``complete_request`` and ``complete_cancel``
(``THREAD_SAFE``): a keystroke's request must not wait for the kernel's loop, which may be busy
with a turn, so the handler takes them on the thread they arrived on and hands them to the
completions' own thread.
"""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence, TypeVarTuple

from comm.base_comm import BaseComm, CommManager

from jupyter_agent.messages import JsonObject
from jupyter_agent.notebook.comm import protocol as p
from jupyter_agent.notebook.comm.jupyter_message import jupyter_message
from jupyter_agent.notebook.comm.materialize import last_turn_cells
from jupyter_agent.notebook.comm.sessions_view import read_history, session_file, session_summaries, transcript_markdown
from jupyter_agent.notebook.threads import call_on_loop

log = logging.getLogger("jupyter_agent.comm")
_Args = TypeVarTuple("_Args")
# Messages the handler takes on any thread (its complete / cancel_completion are thread-safe).
THREAD_SAFE = frozenset({"complete_request", "complete_cancel"})


# The frontend whose message is being handled: a turn it starts (the side panel's chat) addresses
# its notebook requests to that view, not to whichever view of the notebook opened last.
asking_frontend: ContextVar[str | None] = ContextVar("asking_frontend", default=None)


@dataclass(frozen=True)
class Addressee:
    """Which frontend a turn's notebook requests go to, in order: the view that asked (its comm),
    a view of the browser client that ran the cell (``client``: the kernel client's session id,
    one per browser tab; a second tab has a document of its own), else the view opened last."""

    comm_id: str | None = None
    client: str | None = None


class AgentCommHandler(Protocol):
    """What the notebook integration provides. Raise to refuse: the exception text is shown."""

    def sessions_folder(self) -> Path | None:
        """The notebook's ``<stem>.agent`` folder (it may not exist yet)."""

    def stop(self, session: str | None) -> str:
        """Stop the running turns (of ``session``, or all); return what happened, for the user."""

    def steer(self, text: str, session: str | None) -> str:
        """Deliver ``text`` to the running turn at its next step; return what happened."""

    def complete(self, request: p.CompleteRequest, send: Callable[[p.Completion], None]) -> None:
        """Start an inline completion; ``send`` each ``completion`` message (it never raises).

        Called on the thread the message arrived on, and ``send`` may be called on any thread."""

    def cancel_completion(self, request_id: str) -> None:
        """Stop that completion (the user typed on); called on the thread the message arrived on."""

    def edit_cell(self, request: p.EditCellRequest, send: Callable[[p.ProtocolMessage], None]) -> None:
        """Start an Edit with Agent run; ``send`` its ``edit_proposal`` (or a failed reply)."""

    def cancel_edit(self, request_id: str) -> None:
        """Stop that run (the user closed its prompt box)."""

    def decide_edit(self, decision: p.EditDecision) -> str:
        """Record what the user did with a proposal; return what happened."""

    def chat(self, request: p.ChatRequest, send: Callable[[p.ProtocolMessage], None]) -> p.ProtocolMessage:
        """Start a side panel turn; return its ``chat_started`` (``send`` gets its ``chat_finished``)."""

    def notebook_moved(self, path: str, previous: str | None) -> str:
        """The notebook is at ``path`` now (it was at ``previous``): its sessions follow it."""


class _Beacon(BaseComm):
    """A comm of the target that no frontend knows: it only shows up in ``comm_info_reply``."""

    def publish_msg(
        self,
        msg_type: str,
        data: JsonObject | None = None,
        metadata: JsonObject | None = None,
        buffers: list[bytes] | None = None,
        **keys: object,
    ) -> None:
        pass  # never announced, so nothing (not even its close) may reach a frontend


class AgentCommTarget:
    def __init__(self, handler: AgentCommHandler, comm_manager: CommManager, loop: asyncio.AbstractEventLoop | None = None):
        self.handler = handler
        self.comm_manager = comm_manager
        self.frontends: dict[str, BaseComm] = {}  # comm id -> open comm
        self.clients: dict[str, str | None] = {}  # comm id -> the kernel client session that opened it
        self.runs: dict[str, p.RunState] = {}  # session -> its running turn
        self.last_cell: dict[str, str | None] = {}  # session -> agent cell of its last finished turn
        self._loop = loop
        self._beacon: _Beacon | None = None
        # request id -> (the waiting notebook tool, the comm asked): only that comm's reply counts
        self._notebook_replies: dict[str, tuple[asyncio.Future[p.NotebookReply], str]] = {}

    # -- lifecycle -----------------------------------------------------------------------------

    def register(self) -> None:
        self.comm_manager.register_target(p.TARGET_NAME, self._on_open)
        self._beacon = _Beacon(target_name=p.TARGET_NAME, primary=False)
        self.comm_manager.register_comm(self._beacon)

    def unregister(self) -> None:
        if self.comm_manager.targets.get(p.TARGET_NAME) == self._on_open:
            self.comm_manager.unregister_target(p.TARGET_NAME, self._on_open)
        if self._beacon is not None:
            self.comm_manager.comms.pop(self._beacon.comm_id, None)
            self._beacon = None
        for comm in list(self.frontends.values()):
            _quietly(comm.close, {"reason": "the jupyter_agent extension was unloaded"})
        self.frontends.clear()
        self.clients.clear()

    @property
    def connected(self) -> bool:
        """Whether a frontend with the extension listens (the last one may have gone silently)."""
        return bool(self.frontends)

    # -- what the notebook integration calls ---------------------------------------------------

    def send_run_started(self, session: str, cell_id: str | None = None) -> None:
        self.runs[session] = p.RunState(session=session, cell_id=cell_id)
        self._broadcast(p.RunStarted(session=session, cell_id=cell_id))

    def send_run_finished(self, session: str, cell_id: str | None = None, status: str = "completed", steps: int = 0) -> None:
        self.runs.pop(session, None)
        self.last_cell[session] = cell_id
        self._broadcast(p.RunFinished(session=session, cell_id=cell_id, status=status, steps=steps))

    def send_materialize(self, cells: Sequence[p.CellSpec], parent_cell_hint: str | None = None) -> bool:
        """Asks the frontends to insert ``cells`` below the cell ``parent_cell_hint``.

        False when no frontend is connected (or there is nothing to insert): use the fallback.
        """
        if not cells or not self.frontends:
            return False
        self._broadcast(p.Materialize(cells=list(cells), cell_id=parent_cell_hint))
        return True

    def addressee(self, client: str | None = None) -> Addressee:
        """Where the notebook requests of a turn starting now go (``client``: the cell's client session)."""
        return Addressee(asking_frontend.get(), client)

    def frontend_for(self, to: Addressee | None = None) -> BaseComm | None:
        """The open comm ``to`` names (see ``Addressee``); None when no frontend is connected."""
        if not self.frontends:
            return None
        if to is not None and to.comm_id in self.frontends:
            return self.frontends[to.comm_id]
        if to is not None and to.client is not None:
            same_client = [comm for comm_id, comm in self.frontends.items() if self.clients.get(comm_id) == to.client]
            if same_client:
                return same_client[-1]  # views of one tab share its document: any of them answers alike
        return list(self.frontends.values())[-1]  # the notebook panel opened last is the one in front

    async def notebook_request(self, request: p.NotebookRequest, timeout: float, to: Addressee | None = None) -> p.NotebookReply:
        """Sends ``request`` to the frontend ``to`` names and waits for its reply (``LookupError`` without one)."""
        comm = self.frontend_for(to)
        if comm is None:
            raise LookupError("no JupyterLab frontend with the extension is connected")
        future = asyncio.get_running_loop().create_future()
        self._notebook_replies[request.request_id] = (future, comm.comm_id)
        try:
            comm.send(request.to_json())
            return await asyncio.wait_for(future, timeout)
        finally:
            self._notebook_replies.pop(request.request_id, None)

    def send_notice(self, message: p.ProtocolMessage) -> bool:
        """Sends ``message`` to every frontend (the one showing the cell it names acts on it)."""
        if not self.frontends:
            return False
        self._broadcast(message)
        return True

    def send_notebook_request(self, request: p.NotebookRequest, to: Addressee | None = None) -> bool:
        """Fire and forget (``%agent undo`` runs in a cell, which cannot wait for a comm reply)."""
        comm = self.frontend_for(to)
        if comm is None:
            return False
        _quietly(comm.send, request.to_json())
        return True

    # -- comm callbacks ------------------------------------------------------------------------

    def _on_open(self, comm: BaseComm, msg: Mapping[str, object]) -> None:
        opened = jupyter_message(msg)
        data = opened["content"].get("data", {})
        try:
            hello = p.parse_frontend_message(data)
        except p.ProtocolError as error:
            return self._refuse(comm, str(error))
        if not isinstance(hello, p.Hello):
            return self._refuse(comm, f"a comm must open with hello, not {hello.type}")
        if hello.version != p.PROTOCOL_VERSION:
            return self._refuse(
                comm,
                f"the JupyterLab extension speaks protocol {hello.version} and this kernel's "
                f"jupyter_agent speaks {p.PROTOCOL_VERSION}: install matching versions",
            )
        self.frontends[comm.comm_id] = comm
        client = opened["header"].get("session")
        self.clients[comm.comm_id] = client if isinstance(client, str) else None

        def on_message(message: Mapping[str, object]) -> None:  # on the thread the message arrived on (a subshell's)
            data = jupyter_message(message)["content"].get("data")
            if isinstance(data, dict):
                log.debug("%s arrived %s", data.get("request_id"), data.get("type"))
                if data.get("type") in THREAD_SAFE:
                    self.handle(comm, data)
                    return
            call_on_loop(self._loop, self.handle, comm, data)

        comm.on_msg(on_message)

        def on_close(message: Mapping[str, object]) -> None:
            self.frontends.pop(comm.comm_id, None)
            self.clients.pop(comm.comm_id, None)

        comm.on_close(on_close)
        log.debug("frontend %s connected (%s)", comm.comm_id, hello.client)
        call_on_loop(self._loop, self._welcome, comm)

    def _welcome(self, comm: BaseComm) -> None:
        comm.send(p.Welcome(package_version=_package_version(), runs=list(self.runs.values())).to_json())

    def _refuse(self, comm: BaseComm, reason: str) -> None:
        comm.send(p.Reply(ok=False, message=reason).to_json())
        comm.close()

    def handle(self, comm: BaseComm, data: object) -> None:
        """Answers one frontend message on ``comm``; every failure becomes a failed reply."""
        asking = asking_frontend.set(getattr(comm, "comm_id", None))
        try:
            message = p.parse_frontend_message(data)
            answer = self._answer(message, comm)
        except p.ProtocolError as error:
            answer = p.Reply(request_id=error.request_id, ok=False, message=str(error))
        except Exception as error:  # noqa: BLE001 - the frontend shows why, the kernel goes on
            request_id = data.get("request_id") if isinstance(data, dict) else None
            answer = p.Reply(request_id=request_id, ok=False, message=str(error) or type(error).__name__)
        finally:
            asking_frontend.reset(asking)
        if answer is not None:
            comm.send(answer.to_json())

    def _answer(self, message: p.FrontendMessage, comm: BaseComm) -> p.ProtocolMessage | None:
        if isinstance(message, p.Stop):
            return p.Reply(request_id=message.request_id, ok=True, message=self.handler.stop(message.session))
        if isinstance(message, p.Steer):
            outcome = self.handler.steer(message.text, message.session)
            return p.Reply(request_id=message.request_id, ok=True, message=outcome)
        if isinstance(message, p.ListSessions):
            folder = self.handler.sessions_folder()
            return p.Sessions(
                request_id=message.request_id,
                folder=str(folder) if folder else None,
                sessions=session_summaries(folder, running=self.runs),
            )
        if isinstance(message, p.OpenSession):
            path = session_file(self.handler.sessions_folder(), message.session)
            return p.Transcript(
                request_id=message.request_id, session=message.session, markdown=transcript_markdown(read_history(path))
            )
        if isinstance(message, p.MaterializeRequest):
            return self._materialize_answer(message)
        if isinstance(message, p.CompleteRequest):
            self.handler.complete(message, lambda update: _quietly(comm.send, update.to_json()))
            return None
        if isinstance(message, p.CompleteCancel):
            self.handler.cancel_completion(message.request_id)
            return None
        if isinstance(message, p.EditCellRequest):
            self.handler.edit_cell(message, lambda answer: _quietly(comm.send, answer.to_json()))
            return None
        if isinstance(message, p.EditCancel):
            self.handler.cancel_edit(message.request_id)
            return None
        if isinstance(message, p.ChatRequest):
            return self.handler.chat(message, lambda answer: _quietly(comm.send, answer.to_json()))
        if isinstance(message, p.EditDecision):
            return p.Reply(request_id=message.request_id, ok=True, message=self.handler.decide_edit(message))
        if isinstance(message, p.NotebookMoved):
            return p.Reply(
                request_id=message.request_id, ok=True, message=self.handler.notebook_moved(message.path, message.previous)
            )
        if isinstance(message, p.NotebookReply):
            waiting = self._notebook_replies.get(message.request_id)
            if waiting is not None and waiting[1] == comm.comm_id and not waiting[0].done():
                waiting[0].set_result(message)  # another view's answer to the same id is not this one's
            return None
        return None  # a second hello: nothing to add

    def _materialize_answer(self, request: p.MaterializeRequest) -> p.ProtocolMessage:
        folder = self.handler.sessions_folder()
        name = request.session or _most_recent(folder)
        if name is None:
            return p.Reply(request_id=request.request_id, ok=False, message="This notebook has no agent session yet.")
        cells = last_turn_cells(read_history(session_file(folder, name)), session=name)
        if not cells:
            return p.Reply(
                request_id=request.request_id,
                ok=False,
                message=f"The last turn of session {name!r} ran no Python code that succeeded.",
            )
        return p.Materialize(request_id=request.request_id, cells=cells, cell_id=self.last_cell.get(name))

    # -- plumbing ------------------------------------------------------------------------------

    def _broadcast(self, message: p.ProtocolMessage) -> None:
        data = message.to_json()
        for comm in list(self.frontends.values()):
            _quietly(comm.send, data)


def _most_recent(folder: Path | None) -> str | None:
    summaries = session_summaries(folder)
    return summaries[0].name if summaries else None


def _package_version() -> str:
    try:
        return metadata.version("jupyter-agent")
    except metadata.PackageNotFoundError:
        return "unknown"


def _quietly(function: Callable[[*_Args], None], *args: *_Args) -> None:
    # A frontend that went away must not break the agent or the other frontends.
    try:
        function(*args)
    except Exception:  # noqa: BLE001
        log.debug("comm call failed", exc_info=True)


__all__ = ["Addressee", "AgentCommHandler", "AgentCommTarget", "asking_frontend"]
