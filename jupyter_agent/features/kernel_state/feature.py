"""Kernel state as a feature of every turn: each python call's namespace diff, and replay.

Every ``python`` call of a turn (and of ``%agent serve``) is watched: the result ends with what
it changed in the namespace, the change is kept for ``%agent undo`` under the step's undo entry,
and a ``NamespaceChangedEvent`` goes out. A cell asking for a replay (``--replay``,
``AgentMagics.replay``) whose prompt matches a recorded turn becomes that turn played again,
alone: no model, no other feature, nothing written to the session (see ``replay``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ClassVar, Literal, Sequence

from jupyter_agent.features.feature import Feature, FeatureEvent, FeatureTurn, ResolvedModel, RunPlan, TurnContext
from jupyter_agent.features.kernel_state.replay import (
    ReplayError,
    ReplayOutcome,
    find_recording,
    replay_model,
    replay_policy,
    replay_tools,
    scripted_stream,
)
from jupyter_agent.features.kernel_state.watch import CodeWatch, session_watch, watched
from jupyter_agent.loop import AgentTool

if TYPE_CHECKING:
    from jupyter_agent.features.kernel_state.recording import RecordedCall, RecordedTurn
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.messages import Message
    from jupyter_agent.runtime import AgentRun, RunResult
    from jupyter_agent.runtime.events import RunEvent
    from jupyter_agent.runtime.permissions import PermissionPolicy
    from jupyter_agent.session import SessionStore
    from jupyter_agent.session.trust import TrustKey

REPLAYED = "Replayed the recorded turn {index}: {runs} python call(s) run again, no request sent to a model."
WATCHED_TOOL = "python"  # the tool whose calls change the namespace


@dataclass
class NamespaceChangedEvent(FeatureEvent):
    """What one python call changed in the user's namespace (as in its result's details)."""

    line: str  # the line the result ends with, e.g. "Namespace: + df (DataFrame 3×2)"
    changes: list[dict[str, str]]
    type: Literal["namespace_changed"] = field(default="namespace_changed", init=False)


class _Emitting:
    """The watch, telling the turn what each call changed."""

    def __init__(self, watch: CodeWatch, context: TurnContext) -> None:
        self.watch, self.context = watch, context

    def before(self, code: str) -> object:
        return self.watch.before(code)

    def after(self, token: object) -> tuple[str, object]:
        line, changes = self.watch.after(token)
        if line:
            self.context.emit(NamespaceChangedEvent(line, list(changes or [])))
        return line, changes


class KernelStateTurn(FeatureTurn):
    """A live turn: python calls are watched; ``note`` says why a requested replay runs live."""

    def __init__(self, context: TurnContext, note: str = "") -> None:
        super().__init__()
        self.context = context
        self._note = note
        self.watch: CodeWatch | None = None
        if context.shell is not None:
            watch = session_watch(context.shell, context.session, context.current_step, context.settings.undo_snapshot_mb)
            self.watch = _Emitting(watch, context)

    def wrap(self, tool: AgentTool) -> AgentTool:
        if tool.name == WATCHED_TOOL and self.watch is not None:
            return watched(tool, self.watch)
        return tool

    def attach(self, run: AgentRun) -> None:
        if self._note:
            self.context.note(self._note)  # after the model's resolution cleared its own note


class ReplayTurn(KernelStateTurn):
    """The recorded turn played again: its answers streamed by a scripted model, its calls replayed."""

    alone = True

    def __init__(self, context: TurnContext, recorded: RecordedTurn) -> None:
        super().__init__(context)
        self.recorded = recorded
        self.outcome = ReplayOutcome(recorded)
        self._replayed: dict[str, AgentTool] = {}

    def wrap(self, tool: AgentTool) -> AgentTool:
        # Every tool is watched first: a python call replayed runs for real and changes the namespace.
        return self._replayed.get(tool.name, super().wrap(tool))

    def amend(self, plan: RunPlan) -> RunPlan:
        recorded = self.recorded
        model = replay_model(recorded)
        offered = [tool for tools in self.context.turn_tools().values() for tool in tools]
        watched_tools = [KernelStateTurn.wrap(self, tool) for tool in offered]
        made = replay_tools(recorded, watched_tools, yolo=self.context.settings.permissions == "yolo", outcome=self.outcome)
        self._replayed = {tool.name: tool for tool in made}
        known = {tool.name for tool in offered}
        self.tools = [tool for tool in made if tool.name not in known]  # recorded tools this turn lacks
        store, key, note = self.context.session.store, self.context.trust_key, self.context.note

        def gate(policy: PermissionPolicy) -> PermissionPolicy:
            # The same gate as a live turn, with this user's signed calls trusted.
            return replay_policy(recorded, offered, policy, _signed_by_user(store, key), note)

        return dataclasses.replace(
            plan,
            prompt=recorded.prompt,
            messages=[],
            system_prompt=False,
            gate=gate,
            max_steps=len(recorded.answers) or 1,
            max_spend=None,
            model=ResolvedModel(model, scripted_stream(recorded), model.id, gauge=False),
            compaction="off",
            record=False,
        )

    def attach(self, run: AgentRun) -> None:
        run.add_listener(self._settle)

    async def after(self, result: RunResult, added: Sequence[Message]) -> None:
        divergences = self.outcome.divergences
        if divergences:
            text = "; ".join(divergences)
            if self.context.settings.replay == "strict":
                raise ReplayError(f"--replay=strict: the replay diverged from the recording: {text}")
            self.context.note(f"The replay diverged from the recording: {text}")
        else:
            self.context.note(REPLAYED.format(index=self.recorded.index + 1, runs=self.outcome.python_runs))

    def _settle(self, event: RunEvent) -> None:
        # Not recorded: nothing else settles the file snapshots at each step's end, for undo.
        if event.type == "step_finish" and self.context.session.snapshots is not None:
            self.context.session.snapshots.settle()


def _signed_by_user(store: SessionStore, key: TrustKey | None) -> Callable[[RecordedCall], bool]:
    """Whether a recorded call carries this user's valid signature, made in this session's lineage."""
    sessions = store.session_ids

    def trusted(call: RecordedCall) -> bool:
        return key is not None and key.verify(call.signature, sessions, call.id, call.name, call.arguments)

    return trusted


class KernelStateFeature(Feature):
    name: ClassVar[str] = "kernel_state"
    view: ClassVar[str] = "jupyter_agent.features.kernel_state.view"
    serves: ClassVar[bool] = True

    def enabled(self, settings: TurnSettings) -> bool:
        return True  # always on: what the agent's code changed is always shown and undoable

    def open(self, context: TurnContext) -> KernelStateTurn:
        mode = context.settings.replay
        if mode == "off":
            return KernelStateTurn(context)
        recorded, note = find_recording(context.session, context.prompt, mode, context.cell)  # ReplayError under strict
        if recorded is None:
            return KernelStateTurn(context, note)
        return ReplayTurn(context, recorded)


__all__ = ["REPLAYED", "KernelStateFeature", "KernelStateTurn", "NamespaceChangedEvent", "ReplayTurn"]
