"""One external tool call, as the agent's own calls go: validated, gated, shown, recorded.

``ExternalCalls.call`` is what the MCP server's ``tools/call`` handler awaits. The call's card
appears in the serve cell's panel at once (a ``tool_call`` event, then its ``tool_result``), a
mutating call asks through the runtime's ``ApprovalGate`` with the session's permission mode
(the approval bar in that panel names the client), ``python`` waits its turn with the user's
cells, and while the call waits (for a click, for a cell) the client gets a progress
notification every few seconds, so it knows the call is alive. A denial, a bad argument or a
failure is an error result to the client, never an exception; only the client's cancellation
(or the server stopping) cancels the call, which is then shown as cancelled.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import uuid
from typing import TYPE_CHECKING, Awaitable, Callable, Coroutine, Sequence

from pydantic import BaseModel

from jupyter_agent.loop import AbortController, AbortSignal, AgentTool
from jupyter_agent.loop.abort import cancelled_details
from jupyter_agent.loop.execute_tool import execute_tool
from jupyter_agent.loop.types import ToolExecute, ToolReturn
from jupyter_agent.messages import JsonObject, TextContent, ToolCall, ToolResultMessage
from jupyter_agent.runtime.events import (
    ApprovalRequestEvent,
    ApprovalResponseEvent,
    RunEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from jupyter_agent.runtime.limits import HookRunner
from jupyter_agent.runtime.permissions import ApprovalGate, PermissionPolicy

if TYPE_CHECKING:
    from jupyter_agent.features.mcp_server.cell_turns import CellTurns
    from jupyter_agent.features.mcp_server.record import CallRecorder

PROGRESS_INTERVAL = 5.0  # seconds between two progress notifications while a call waits
WAITING_FOR_APPROVAL = "waiting for approval in the notebook"
CANCELLED = "The call was cancelled before it finished."
# Progress reporting: (progress count, message) -> sent to the client (a no-op without a token).
Progress = Callable[[float, str], Awaitable[None]]
# Runs a python call's code: the host routes the kernel's Interrupt (■) into it (see McpServe).
CodeRunner = Callable[[Callable[[], Coroutine[object, object, ToolReturn]]], Awaitable[ToolReturn]]


async def _run_directly(work: Callable[[], Coroutine[object, object, ToolReturn]]) -> ToolReturn:
    return await work()


async def _no_progress(_count: float, _message: str) -> None:
    return None


class _Heartbeat:
    """Progress notifications while a call waits; silent while it runs."""

    def __init__(self, send: Progress) -> None:
        self._send = send
        self._count = 0
        self._task: asyncio.Task[None] | None = None
        self.message = ""

    def waiting(self, message: str) -> None:
        self.message = message
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._beat())

    def resumed(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _beat(self) -> None:
        while True:
            self._count += 1
            try:
                await self._send(self._count, self.message)
            except Exception:  # noqa: BLE001 - a client that stopped listening does not fail the call
                return
            await asyncio.sleep(PROGRESS_INTERVAL)


class ExternalCalls:
    def __init__(
        self,
        tools: Sequence[AgentTool],
        *,
        policy: PermissionPolicy,
        emit: Callable[[RunEvent], None],
        recorder: CallRecorder,
        cell_turns: CellTurns,
        after_call: Callable[[], None] = lambda: None,
        run_code: CodeRunner | None = None,
    ) -> None:
        self.run_code = run_code or _run_directly
        self.tools = {tool.name: tool for tool in tools}
        self.policy = policy
        self.emit = emit
        self.recorder = recorder
        self.cell_turns = cell_turns
        self.after_call = after_call  # e.g. settle the step's file snapshots
        self.calls = 0
        self.pending: set[asyncio.Task[object]] = set()

    async def call(
        self, name: str, arguments: JsonObject | None, client: str, progress: Progress = _no_progress
    ) -> ToolResultMessage:
        call = ToolCall(id=f"mcp_{uuid.uuid4().hex[:16]}", name=name, arguments=dict(arguments or {}))
        self.calls += 1
        heartbeat = _Heartbeat(progress)
        controller = AbortController()
        gate = ApprovalGate(
            self.policy, self._gate_events(heartbeat), HookRunner(controller.signal), fail_run=lambda _error: None
        )
        self._safely(ToolCallEvent(tool_call_id=call.id, name=name, args=dict(call.arguments)))
        try:
            result = await execute_tool(call, self._tools_for(name, client, heartbeat, gate), controller.signal)
        except asyncio.CancelledError:
            controller.abort()
            gate.cancel_outstanding()  # the approval bar's question is void: the card says "cancelled"
            result = ToolResultMessage(
                tool_call_id=call.id,
                tool_name=name,
                content=[TextContent(text=CANCELLED)],
                details=cancelled_details(),
                is_error=True,
            )
            self._finish(client, call, result)
            raise
        finally:
            heartbeat.resumed()
        self._finish(client, call, result)
        return result

    def _finish(self, client: str, call: ToolCall, result: ToolResultMessage) -> None:
        self._safely(ToolResultEvent.of(result))
        self.recorder.record(client, call, result)
        try:
            self.after_call()
        except Exception:  # noqa: BLE001 - bookkeeping must not change the call's result
            pass

    def _gate_events(self, heartbeat: _Heartbeat) -> Callable[[RunEvent], None]:
        def emit(event: RunEvent) -> None:
            if isinstance(event, ApprovalRequestEvent):
                heartbeat.waiting(WAITING_FOR_APPROVAL)
            elif isinstance(event, ApprovalResponseEvent):
                heartbeat.resumed()
            self._safely(event)

        return emit

    def _tools_for(self, name: str, client: str, heartbeat: _Heartbeat, gate: ApprovalGate) -> dict[str, AgentTool]:
        """The called tool gated for this call: its approval names the client, its waits beat."""
        tool = self.tools.get(name)
        if tool is None:
            return self.tools  # execute_tool answers "Tool not found" with the names there are
        labelled = dataclasses.replace(tool, label=f"{tool.label or tool.name}, called by {client} over MCP")
        if name == "python":
            labelled = dataclasses.replace(labelled, execute=self._in_turn(labelled.execute, heartbeat))
        [gated] = gate.wrap([labelled])
        return {name: gated}

    def _in_turn(self, execute: ToolExecute, heartbeat: _Heartbeat) -> ToolExecute:
        async def run_in_turn(args: BaseModel, signal: AbortSignal) -> ToolReturn:
            async def code() -> ToolReturn:
                outcome = execute(args, signal)
                return await outcome if inspect.isawaitable(outcome) else outcome

            async def work() -> ToolReturn:
                heartbeat.resumed()
                return await self.run_code(code)

            return await self.cell_turns.run(work, on_wait=heartbeat.waiting)

        return run_in_turn

    def _safely(self, event: RunEvent) -> None:
        try:
            self.emit(event)
        except Exception:  # noqa: BLE001 - the panel never fails a call
            pass


__all__ = ["CANCELLED", "CodeRunner", "PROGRESS_INTERVAL", "WAITING_FOR_APPROVAL", "ExternalCalls", "Progress"]
