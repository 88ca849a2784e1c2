"""A ``%%agent`` turn's ``notebook_edit``, reviewed in the cell it changes (the lab extension).

When the turn asks to replace or delete a cell and the extension is connected, the cell shows the
same inline diff as Edit with Agent (``edit_review``), beside the approval bar of the turn's panel,
which keeps its own diff (headless and terminal runs have only that). The first to decide wins:
Accept in the cell allows the call once, Reject denies it; a click on the bar (or Stop) closes the
cell's review (``edit_review_done``). The edit itself is applied and recorded by the tool, as
after any approval, so ``%agent undo`` reverts it.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Awaitable

if TYPE_CHECKING:
    from jupyter_agent.notebook.comm import protocol as p
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

ALLOWED = "Allowed: the agent applies the edit."
DENIED = "Denied: the cell stays as it is."


class EditReviews:
    """The inline reviews waiting for a decision; ``review`` is the sessions' approval reviewer."""

    def __init__(self, shell: object) -> None:
        """``shell``: the kernel's IPython shell, whose comm target reaches the cells."""
        self.shell = shell
        self._pending: dict[str, asyncio.Future[Decision]] = {}

    def review(self, request: ApprovalRequest) -> Awaitable[Decision] | None:
        """An awaitable decision when the cell can review ``request``; None when only the bar can."""
        from jupyter_agent.features.notebook_tools.state import last_read_source
        from jupyter_agent.notebook.comm import protocol as p
        from jupyter_agent.notebook.comm import target_for

        args = request.args if isinstance(request.args, dict) else {}
        op, cell_id = args.get("op"), args.get("cell_id")
        if request.tool_name != "notebook_edit" or op not in ("replace", "delete") or not isinstance(cell_id, str):
            return None  # an insert has no cell yet to show its diff in
        before = last_read_source(cell_id)
        target = target_for(self.shell)
        if before is None or not target.connected:
            return None  # unread cells are refused by the tool anyway; no extension, no cell to review in
        after = "" if op == "delete" else str(args.get("source") or "")
        review_id = uuid.uuid4().hex
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        message = p.EditReview(request_id=review_id, cell_id=cell_id, op=op, before=before, after=after)
        if not target.send_notice(message):
            return None
        self._pending[review_id] = future
        return self._wait(review_id, future)

    async def _wait(self, review_id: str, future: asyncio.Future[Decision]) -> Decision:
        try:
            return await future
        finally:
            self._pending.pop(review_id, None)
            if not future.done():  # decided elsewhere: the cell must not keep offering it
                from jupyter_agent.notebook.comm import protocol as p
                from jupyter_agent.notebook.comm import target_for

                target_for(self.shell).send_notice(p.EditReviewDone(request_id=review_id))

    def decide(self, decision: p.EditDecision) -> str | None:
        """The cell's Accept or Reject of a review (None: ``decision`` answers no review)."""
        future = self._pending.get(decision.request_id)
        if future is None:
            return None
        if not future.done():
            future.set_result("once" if decision.accepted else "deny")
        return ALLOWED if decision.accepted else DENIED
