"""The task plan of a session, kept beside its file: ``main.jsonl`` → ``main.plan.json``.

The session file is an append-only journal of a fixed set of record kinds; the plan is one small
document that changes in place, so it lives in its own file, rewritten atomically (a crash leaves
the old plan or the new one, never half of each). ``PlanFile.state()`` loads the plan and keeps
the file current on every change, which is all resume needs.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from jupyter_agent.features.plan.state import PlanError, PlanState

PLAN_SUFFIX = ".plan.json"
_log = logging.getLogger(__name__)


def plan_path(session_path: str | Path) -> Path:
    session = Path(session_path)
    return session.with_name(session.stem + PLAN_SUFFIX)


class PlanFile:
    def __init__(self, session_path: str | Path) -> None:
        self.path = plan_path(session_path)

    def load(self) -> PlanState:
        """The saved plan; an empty one when there is none or the file is unreadable."""
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
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def state(self) -> PlanState:
        """The saved plan, saved again after every change."""
        state = self.load()
        state.on_change(self.save)
        return state

    def copy_to(self, session_path: str | Path) -> None:
        """Gives a forked session (``--branch``) the plan as it is now."""
        PlanFile(session_path).save(self.load())


__all__ = ["PLAN_SUFFIX", "PlanFile", "plan_path"]
