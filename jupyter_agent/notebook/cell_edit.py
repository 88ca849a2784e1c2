""" "Edit with Agent": the lab extension's ``edit_cell`` request, run as a short read-only turn.

The extension sends the cell (id, source, type) and the user's instruction; a run with the
notebook's read tool and the kernel's read-only tools (``variables``, ``inspect``; permissions
``readonly``, at most ``MAX_STEPS`` steps) proposes the cell's new source, sent back as an
``edit_proposal``. The extension shows it as an inline diff; nothing changes until the user
accepts. An accepted edit (``edit_decision``) is recorded in the session's notebook edit log,
newest of all, so the next ``%agent undo`` reverts it, and, when no turn of the session runs, as
a request and its answer in the session, so ``%agent history`` and later turns know it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from jupyter_agent.features.cell_edit import MAX_STEPS, SYSTEM_PROMPT, demo_edit, edit_prompt, proposed_source
from jupyter_agent.notebook.comm import protocol as p

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.features.frontend import CellJson
    from jupyter_agent.notebook.config import AgentConfig
    from jupyter_agent.notebook.session_manager import AgentSession, SessionManager

EDIT_TOOLS = ("notebook_read", "variables", "inspect")
REJECTED = "Edit rejected: the cell is unchanged."
ACCEPTED = "Edit applied. %agent undo reverts it."
CANCELLED = "The edit was cancelled."


class CellEdits:
    """The kernel's "Edit with Agent" runs (the comm handler's ``edit_cell`` and ``edit_decision``)."""

    def __init__(self, shell: InteractiveShell | None, sessions: SessionManager, config: Callable[[], AgentConfig]) -> None:
        self.shell = shell
        self.sessions = sessions
        self._config = config
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._asked: dict[str, p.EditCellRequest] = {}  # request id -> what was asked, until decided

    def propose(self, request: p.EditCellRequest, send: Callable[[p.ProtocolMessage], None]) -> None:
        task = asyncio.get_running_loop().create_task(self._propose(request, send))
        self._tasks[request.request_id] = task

        def ended(task: asyncio.Task[None]) -> None:
            self._tasks.pop(request.request_id, None)
            if task.cancelled():  # also before it ever ran: the prompt box still waits for an answer
                send(p.Reply(request_id=request.request_id, ok=False, message=CANCELLED))

        task.add_done_callback(ended)

    def cancel(self, request_id: str) -> bool:
        task = self._tasks.get(request_id)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def close(self) -> None:
        for request_id in list(self._tasks):
            self.cancel(request_id)

    async def _propose(self, request: p.EditCellRequest, send: Callable[[p.ProtocolMessage], None]) -> None:
        try:
            source, label = await self._run(request)
        except Exception as error:  # noqa: BLE001 - the cell's prompt box shows why
            from jupyter_agent.notebook.runner import describe_error

            send(p.Reply(request_id=request.request_id, ok=False, message=describe_error(error)))
            return
        self._asked[request.request_id] = request
        send(p.EditProposal(request_id=request.request_id, cell_id=request.cell_id, source=source, model=label))

    async def _run(self, request: p.EditCellRequest) -> tuple[str, str]:
        from jupyter_agent.notebook.model_resolution import choose_model, resolve
        from jupyter_agent.notebook.site_limits import load_site_policy, site_model

        policy = load_site_policy()
        config = policy.apply(self._config())
        session = self.sessions.recent()
        choice = site_model(choose_model(None, session.model_name, config.model, configured_by=config.set_by("model")), policy)
        resolved = await asyncio.to_thread(
            resolve,
            choice,
            api_key=config.api_key or None,
            api_base=config.api_base or None,
            idle_timeout=config.stream_timeout,
        )
        if resolved.is_demo:
            answer = demo_edit(request.prompt, request.source, request.cell_type, request.generate)
            return proposed_source(answer), resolved.label
        from jupyter_agent.notebook.toolset import build_tools, data_policy, privacy_gate
        from jupyter_agent.runtime import PermissionPolicy, run_agent

        data = data_policy(config.data_policy, config.sample_rows, config.data_ceiling)
        tools = build_tools(self.shell, session, selected=EDIT_TOOLS, policy=data)
        resolved = resolved.behind(privacy_gate(data))  # the edit's requests pass the turns' gate
        run = run_agent(
            model=resolved.model,
            prompt=edit_prompt(request.prompt, request.cell_id, request.source, request.cell_type, request.generate),
            system=SYSTEM_PROMPT,
            tools=tools,
            stream_fn=resolved.stream_fn,
            max_steps=MAX_STEPS,
            permissions=PermissionPolicy(mode="readonly"),
        )
        try:
            result = await run.result()
        except asyncio.CancelledError:
            run.interrupt()
            raise
        if result.reason == "error":
            raise RuntimeError(result.error or "the model failed")
        return proposed_source(result.text), resolved.label

    def decide(self, decision: p.EditDecision) -> str:
        asked = self._asked.pop(decision.request_id, None)
        if not decision.accepted:
            return REJECTED
        session = self.sessions.recent()
        record_accepted_edit(session, decision, asked)
        return ACCEPTED


def record_accepted_edit(session: AgentSession, decision: p.EditDecision, asked: p.EditCellRequest | None) -> None:
    """The edit as the newest step of the session's notebook edits (and its request and answer)."""
    from jupyter_agent.features.notebook_tools import NotebookEdit, NotebookEditLog

    log = NotebookEditLog.for_session(session.path)
    file_steps = [entry.step for entry in session.snapshots.steps()] if session.snapshots is not None else []
    step = max([edit.step for edit in log.edits()] + file_steps + [0]) + 1  # newest: %agent undo takes it first
    cell_type = asked.cell_type if asked is not None else "code"
    before: CellJson = {"id": decision.cell_id, "cell_type": cell_type, "source": decision.before}
    after: CellJson = {"id": decision.cell_id, "cell_type": cell_type, "source": decision.after}
    log.record(NotebookEdit(step=step, op="replace", cell_id=decision.cell_id, index=decision.index, before=before, after=after))
    if asked is not None and not session.lock.locked():  # a running turn's messages must stay together
        from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage

        fence = "python" if cell_type == "code" else "markdown"
        session.store.append(UserMessage(content=f"[Edit with Agent, cell {decision.cell_id}] {asked.prompt}"))
        session.store.append(
            AssistantMessage(
                content=[TextContent(text=f"Accepted edit of cell {decision.cell_id}:\n```{fence}\n{decision.after}\n```")],
                provider="jupyter-agent",
                model="edit-with-agent",
            )
        )
        session.store.sync()
