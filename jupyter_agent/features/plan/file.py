"""The task plan of a session, kept beside its file: ``main.jsonl`` → ``main.plan.json``.

The session file is an append-only journal of a fixed set of record kinds; the plan is one small
document that changes in place, so it lives in its own file, rewritten atomically (a crash leaves
the old plan or the new one, never half of each). ``PlanFile.state()`` loads the plan and keeps
the file current on every change, which is all resume needs.

The session file decides which plan is current: every accepted ``plan`` call's result holds the
whole checklist (its details), so the plan of a branch is the one its last such call left. When a
re-run cell branches the session before the turns it replaces (``SessionStore.redo``), their plan
goes with them: ``state(history)`` rolls the file back to the branch's plan.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from jupyter_agent.features.plan.state import PlanError, PlanState
from jupyter_agent.files import atomic_write
from jupyter_agent.messages import Message

PLAN_SUFFIX = ".plan.json"
_log = logging.getLogger(__name__)


def plan_path(session_path: str | Path) -> Path:
    session = Path(session_path)
    return session.with_name(session.stem + PLAN_SUFFIX)


def recorded_plan(tool_results: Iterable[Message]) -> PlanState | None:
    """The plan the last accepted ``plan`` call left (None: no call set one); ``tool_results``:
    a history's tool results newest first (``SessionStore.tool_results_newest_first("plan")``)."""
    for message in tool_results:
        if message.role == "tool_result" and message.tool_name == "plan" and not message.is_error:
            try:
                return PlanState.from_json(message.details)
            except PlanError:
                continue  # a record that holds no plan (edited by hand): the call before it decides
    return None


class PlanFile:
    def __init__(self, session_path: str | Path) -> None:
        self.path = plan_path(session_path)

    def load(self, tool_results: Iterable[Message] | None = None) -> PlanState:
        """The saved plan; an empty one when there is none or the file is unreadable. With the
        tool results of the session's active branch, newest first: the plan that branch's calls
        left, empty when they made none."""
        if tool_results is not None:
            return recorded_plan(tool_results) or PlanState()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return PlanState.from_json(data)
        except FileNotFoundError:
            return PlanState()
        except (OSError, ValueError, PlanError) as problem:
            # A damaged plan must not stop the session from resuming: start a fresh checklist.
            _log.warning("ignoring unreadable plan file %s: %s", self.path, problem)
            return PlanState()

    def save(self, state: PlanState) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(state.to_json(), ensure_ascii=False, indent=1)
        # Private like the session it belongs to; a plan lost to a power cut is only a checklist.
        atomic_write(self.path, text.encode("utf-8"), new_mode=0o600, durable=False)

    def state(self, tool_results: Iterable[Message] | None = None) -> PlanState:
        """The saved plan (with the branch's ``tool_results``, newest first: the branch's plan,
        saved when the file held another), saved again after every change."""
        state = self.load(tool_results)
        if tool_results is not None and state.to_json() != self.load().to_json():
            self.save(state)  # the turns that made the file's plan are on another branch now
        state.on_change(self.save)
        return state

    def copy_to(self, session_path: str | Path) -> None:
        """Gives a forked session (``--branch``) the plan as it is now."""
        PlanFile(session_path).save(self.load())


__all__ = ["PLAN_SUFFIX", "PlanFile", "plan_path", "recorded_plan"]
