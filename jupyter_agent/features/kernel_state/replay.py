"""``%%agent --replay``: play a recorded turn again, in this kernel, without calling a model.

The recorded assistant messages are streamed again by a scripted model, so the panel shows the
turn as it was (text, tool cards, the answer) and nothing is sent to a provider. Tool calls run
through the turn's own tools: ``python`` runs its recorded code again (that is what rebuilds the
namespace), with the approval it had (a call denied then is denied again, unasked); every other
tool (file writes, bash, notebook edits, plan, memory, MCP…) gets its recorded result back unless
the cell says ``-p yolo``, which runs the ones this turn has. The replay itself is not added to
the session: the recording stays what it was. A cell with no matching recording runs live with
a note, or fails under ``--replay=strict``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel, ConfigDict

from jupyter_agent.features.kernel_state.recording import (
    RecordedCall,
    RecordedTurn,
    arguments_key,
    cursor_for,
    prompt_text,
    recorded_turns,
)
from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.messages import TextContent, Usage
from jupyter_agent.model import Model
from jupyter_agent.model.scripted import ScriptedModel, ScriptedResponse
from jupyter_agent.tools.errors import ToolError

REPLAY_PROVIDER = "replay"
NOT_RUN = "[Replayed from the recording; not run again: tools other than python run again only with -p yolo.]"
NO_RECORDING = "No recorded turn of session {session!r} has this prompt"
EDITED = "This cell's prompt differs from the recorded turn {index} (edited since it ran?)"


class ReplayError(RuntimeError):
    """``--replay=strict`` could not replay the cell exactly."""


@dataclasses.dataclass
class ReplayOutcome:
    turn: RecordedTurn
    python_runs: int = 0
    divergences: list[str] = dataclasses.field(default_factory=list)


class _AnyArguments(BaseModel):
    model_config = ConfigDict(extra="allow")


def find_recording(session: Any, prompt: str, mode: str) -> tuple[RecordedTurn | None, str]:
    """The recorded turn the cell replays, or None and the note (empty: say nothing) for a live turn.

    Raises ``ReplayError`` under ``strict`` when there is none."""
    turns = recorded_turns(session.store)
    cursor = cursor_for(str(session.path))
    expected = cursor.expected(turns)
    chosen = cursor.choose(turns, prompt_text(prompt))
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
    """One tool per recorded tool name: the real one for python (and for all under yolo), else the recording."""
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


def _replayed(
    name: str, calls: list[RecordedCall], runner: AgentTool | None, real: AgentTool | None, outcome: ReplayOutcome
) -> AgentTool:
    async def execute(args: BaseModel, signal: AbortSignal) -> Any:
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
    return AgentTool(name=name, description=description, parameters=parameters, execute=execute, label=label)


def _take(calls: list[RecordedCall], arguments: dict[str, Any]) -> RecordedCall | None:
    # Calls of one name are taken in order; the one with the same arguments first (parallel calls).
    wanted = arguments_key(arguments)
    for index, call in enumerate(calls):
        if arguments_key(call.arguments) == wanted:
            return calls.pop(index)
    return calls.pop(0) if calls else None


__all__ = ["NOT_RUN", "ReplayError", "ReplayOutcome", "find_recording", "replay_model", "replay_tools", "scripted_stream"]
