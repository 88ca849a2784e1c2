"""``%%agent --replay``: play a recorded turn again, in this kernel, without calling a model.

The recorded assistant messages are streamed again by a scripted model, so the panel shows the
turn as it was (text, tool cards, the answer) and nothing is sent to a provider. Tool calls run
through the turn's own tools: ``python`` runs its recorded code again (that is what rebuilds the
namespace); every other tool (file writes, bash, notebook edits, plan, memory, MCP…) gets its
recorded result back unless the cell says ``-p yolo``, which runs the ones this turn has. The
replay itself is not added to the session: the recording stays what it was. A cell with no
matching recording runs live with a note, or fails under ``--replay=strict``.

A call that runs again passes the same gate as a live one (``replay_policy``): the turn's
permission mode (so ``readonly``, a site ceiling of ``readonly`` and a headless run that cannot
ask refuse it) and its approvals, except that a call this user signed when it was allowed
(``session/trust.py``) is trusted and runs unasked. An unsigned or edited record is new code: it
is asked about, with the reason said first. A call denied when it was recorded is denied again,
unasked.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from typing import TYPE_CHECKING, Callable

from pydantic import BaseModel, ConfigDict

from jupyter_agent.errors import UserFacingError
from jupyter_agent.features.kernel_state.recording import (
    RecordedCall,
    RecordedTurn,
    arguments_key,
    cursor_for,
    prompt_text,
    recorded_turns,
)
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.loop.types import ToolReturn
from jupyter_agent.messages import JsonObject, TextContent, Usage
from jupyter_agent.model import Model
from jupyter_agent.model.scripted import ScriptedModel, ScriptedResponse
from jupyter_agent.runtime.permissions import ApprovalRequest, Decision, PermissionPolicy, Prompt, Trust
from jupyter_agent.session.records import CellRef
from jupyter_agent.tools.errors import ToolError

if TYPE_CHECKING:
    from jupyter_agent.features.feature import TurnSession

REPLAY_PROVIDER = "replay"
NOT_RUN = "[Replayed from the recording; not run again: tools other than python run again only with -p yolo.]"
NO_RECORDING = "No recorded turn of session {session!r} has this prompt"
UNTRUSTED = (
    "Replay: this {tool} call was recorded by someone else or edited since (it carries no valid signature of yours), "
    "so it needs your approval like new code."
)
EDITED = "This cell's prompt differs from the recorded turn {index} (edited since it ran?)"


class ReplayError(RuntimeError, UserFacingError):
    """``--replay=strict`` could not replay the cell exactly."""


@dataclasses.dataclass
class ReplayOutcome:
    turn: RecordedTurn
    python_runs: int = 0
    divergences: list[str] = dataclasses.field(default_factory=list)


class _AnyArguments(BaseModel):
    model_config = ConfigDict(extra="allow")


def find_recording(session: TurnSession, prompt: str, mode: str, cell: CellRef | None = None) -> tuple[RecordedTurn | None, str]:
    """The recorded turn the cell replays, or None and the note (empty: say nothing) for a live turn.
    ``cell``: the cell asking (its own recorded turn comes first); None: a turn from no cell.

    Raises ``ReplayError`` under ``strict`` when there is none."""
    turns = recorded_turns(session.store)
    cursor = cursor_for(str(session.path))
    expected = cursor.expected(turns, cell)
    chosen = cursor.choose(turns, prompt_text(prompt), cell)
    if chosen is not None:
        return chosen, ""
    problem = EDITED.format(index=expected.index + 1) if expected is not None else NO_RECORDING.format(session=session.name)
    if mode == "strict":
        raise ReplayError(f"--replay=strict: {problem}: nothing was run.")
    if mode == "auto" and expected is None:
        return None, ""  # a new cell in a notebook that replays what it has: simply live
    return None, f"{problem}: running it live."


def scripted_stream(turn: RecordedTurn) -> ScriptedModel:
    """The turn's assistant messages as a stream function (no usage: nothing is spent)."""
    responses = [
        ScriptedResponse(
            content=[block.model_copy(deep=True) for block in answer.content],
            stop_reason=answer.stop_reason,
            error_message=answer.error_message,
            usage=Usage(),
        )
        for answer in turn.answers
    ]
    return ScriptedModel(responses, chunk_size=4096)


def replay_model(turn: RecordedTurn) -> Model:
    # A window no replay fills: a compaction request would ask the scripted model for a summary.
    return Model(id=f"replay of {turn.model or 'a recorded turn'}", provider=REPLAY_PROVIDER, context_window=1 << 40)


def replay_tools(turn: RecordedTurn, tools: list[AgentTool], *, yolo: bool, outcome: ReplayOutcome) -> list[AgentTool]:
    """One tool per recorded tool name: the real one for python (and for all under yolo), else the recording.

    Only the tools that run again are gated (``replay_policy``); one that hands back its recorded
    result changes nothing."""
    by_name = {tool.name: tool for tool in tools}
    pending: dict[str, list[RecordedCall]] = {}
    for call in turn.calls:
        pending.setdefault(call.name, []).append(call)
    made = []
    for name, calls in pending.items():
        real = by_name.get(name)
        runs = real is not None and (name == "python" or yolo)
        made.append(_replayed(name, calls, real if runs else None, by_name.get(name), outcome))
    return made


class ReplayTrust(Trust):
    """The session's trust, plus the recorded calls a replay may run unasked (this user's signed
    ones, and those denied when recorded, which are refused anyway). What the user allows here is
    remembered by the session's trust, as in a live turn."""

    def __init__(self, session: Trust, unasked: set[tuple[str, str]]) -> None:  # noqa: D107 - no Trust.__init__: its sets are the session's
        self.session = session
        self.unasked = unasked

    @property
    def trusted_tools(self) -> set[str]:  # type: ignore[override]
        return self.session.trusted_tools

    @property
    def trusted_calls(self) -> set[tuple[str, str]]:  # type: ignore[override]
        return self.session.trusted_calls

    def is_trusted(self, request: ApprovalRequest) -> bool:
        return (request.tool_name, arguments_key(request.args)) in self.unasked or self.session.is_trusted(request)

    def remember(self, request: ApprovalRequest, decision: Decision) -> None:
        self.session.remember(request, decision)

    def prompt_lock(self) -> asyncio.Lock:
        return self.session.prompt_lock()


def _explaining(prompt: Prompt, note: Callable[[str], None] | None) -> Prompt:
    """``prompt``, saying first why a recorded call is asked about."""

    async def ask(request: ApprovalRequest) -> str:
        if note is not None:
            note(UNTRUSTED.format(tool=request.tool_name))
        answer = prompt(request)
        return await answer if inspect.isawaitable(answer) else answer

    return ask


def replay_policy(
    turn: RecordedTurn,
    tools: list[AgentTool],
    turn_policy: PermissionPolicy,
    trusted: Callable[[RecordedCall], bool],
    note: Callable[[str], None] | None = None,
) -> PermissionPolicy:
    """The gate of a replay: the turn's mode, prompt and reviewer over the session's trust, with the recorded
    calls ``trusted(call)`` accepts (this user's valid signature) run unasked."""
    by_name = {tool.name: tool for tool in tools}
    unasked = set()
    for call in turn.calls:
        if call.denied or trusted(call):
            unasked.add((call.name, arguments_key(_as_gated(by_name.get(call.name), call.arguments))))
    prompt = _explaining(turn_policy.prompt, note) if turn_policy.prompt is not None else None
    return PermissionPolicy(
        turn_policy.mode, prompt=prompt, reviewer=turn_policy.reviewer, trust=ReplayTrust(turn_policy.trust, unasked)
    )


def _as_gated(tool: AgentTool | None, arguments: JsonObject) -> JsonObject:
    # The gate sees the arguments as the tool validated them (defaults filled in).
    if tool is None or not isinstance(tool.parameters, type) or not issubclass(tool.parameters, BaseModel):
        return arguments
    try:
        return tool.parameters.model_validate(arguments).model_dump(mode="json")
    except ValueError:
        return arguments


def _replayed(
    name: str, calls: list[RecordedCall], runner: AgentTool | None, real: AgentTool | None, outcome: ReplayOutcome
) -> AgentTool:
    async def execute(args: BaseModel, signal: AbortSignal) -> ToolReturn:
        call = _take(calls, args.model_dump(mode="json", exclude_unset=True))
        if call is None or call.result is None:
            raise ToolError(f"The recording has no result for this {name} call: not run.")
        if call.denied:
            raise ToolError(call.result.text)
        if runner is None:
            if call.result.is_error:
                raise ToolError(call.result.text)
            return ToolOutput(content=[*call.result.content, TextContent(text=NOT_RUN)], details=call.result.details)
        if name == "python":
            outcome.python_runs += 1
        try:
            returned = await runner.execute(args, signal)
        except Exception as error:
            if not call.result.is_error:
                outcome.divergences.append(f"{name} call {call.id} failed now ({error}) but succeeded when recorded")
            raise
        if call.result.is_error:
            outcome.divergences.append(f"{name} call {call.id} succeeded now but failed when recorded")
        return returned

    parameters = real.parameters if real is not None else _AnyArguments
    description = real.description if real is not None else f"(replayed) {name}"
    label = real.label if real is not None else name
    # A recorded result handed back changes nothing: only a tool that runs again is gated.
    return AgentTool(
        name=name, description=description, parameters=parameters, execute=execute, label=label, read_only=runner is None
    )


def _take(calls: list[RecordedCall], arguments: JsonObject) -> RecordedCall | None:
    # Calls of one name are taken in order; the one with the same arguments first (parallel calls).
    wanted = arguments_key(arguments)
    for index, call in enumerate(calls):
        if arguments_key(call.arguments) == wanted:
            return calls.pop(index)
    return calls.pop(0) if calls else None


__all__ = [
    "NOT_RUN",
    "ReplayError",
    "ReplayOutcome",
    "ReplayTrust",
    "UNTRUSTED",
    "find_recording",
    "replay_model",
    "replay_policy",
    "replay_tools",
    "scripted_stream",
]
