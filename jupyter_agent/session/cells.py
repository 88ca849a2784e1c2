"""Agent cells are the conversation: where a cell's turn goes on the session's active branch.

A turn records the cell it came from (``CellRef``). When a cell runs, the turn continues the
conversation *above* it; whatever the active branch holds after that point (the cell's own
earlier turn, turns of cells below it or of cells since deleted) leaves the active branch: the
session branches just before it, and those turns stay readable on the branch they were on.

Which turns are "above" depends on what the kernel knows:

* **the document** (JupyterLab sends the cell's ``cellId`` and the notebook's cells are known):
  the turns of the cells above this one in the notebook, in the order they ran; a turn from no
  cell (the side panel, the terminal, an older file) is kept where it is;
* **this run** (a headless run: nbclient, papermill, ``nbconvert --execute`` execute the notebook
  from the top in a new kernel): the turns this kernel made, so every run starts where the
  first one did;
* **the cell itself** (a ``cellId`` the notebook does not show yet, or no ``cellId`` outside a
  headless run): the turns before this cell's own earliest turn on the branch, else all of them.
  Without a ``cellId`` a cell is known by its position among the kernel's agent cells together
  with its prompt.

``--append`` keeps the old behaviour: the turn is added after the newest one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from jupyter_agent.session.records import CellRef
from jupyter_agent.session.turns import TurnSpan

Rule = Literal["append", "document", "run", "cell"]


def prompt_digest(prompt: str) -> str:
    """What identifies a cell's prompt: whitespace-insensitive, short, and no copy of the text."""
    return hashlib.sha256(" ".join(prompt.split()).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class DocumentCell:
    """An agent cell of the notebook, in document order."""

    cell_id: str | None
    prompt: str  # prompt_digest of the cell's prompt


@dataclass(frozen=True)
class Continuation:
    """Where the turn of ``cell`` goes: after ``earlier``; ``replaced`` leave the active branch."""

    cell: CellRef
    earlier: tuple[TurnSpan, ...]
    replaced: tuple[TurnSpan, ...]
    rule: Rule

    @property
    def branch_before(self) -> TurnSpan | None:
        """The turn the session branches just before (None: the turn is added after the newest)."""
        return self.replaced[0] if self.replaced else None

    @property
    def redoes(self) -> bool:
        """Whether the cell's own earlier turn is among those replaced (a re-run, not a new cell)."""
        return any(same_cell(turn.cell, self.cell) for turn in self.replaced)


def plan_continuation(
    turns: Sequence[TurnSpan],
    cell: CellRef,
    *,
    append: bool = False,
    headless_run: bool = False,
    document: Sequence[DocumentCell] | None = None,
) -> Continuation:
    """Where the turn of ``cell`` goes on a branch holding ``turns`` (see the module's rules)."""
    turns = tuple(turns)
    if append:
        return Continuation(cell, turns, (), "append")
    rule: Rule = "cell"
    if cell.cell_id is not None and document is not None:
        position = next((i for i, known in enumerate(document) if known.cell_id == cell.cell_id), None)
        if position is not None:
            rule, kept = "document", _prefix(turns, lambda turn: _above(turn, document, position))
    if rule == "cell" and headless_run:
        rule, kept = "run", _prefix(turns, lambda turn: turn.cell is not None and turn.cell.kernel == cell.kernel)
    if rule == "cell":
        kept = next((i for i, turn in enumerate(turns) if same_cell(turn.cell, cell)), len(turns))
    return Continuation(cell, turns[:kept], turns[kept:], rule)


def same_cell(recorded: CellRef | None, cell: CellRef) -> bool:
    """Whether a turn recorded for ``recorded`` came from ``cell``: the same ``cellId``, or without
    one the same position among the kernel's agent cells and the same prompt."""
    if recorded is None:
        return False
    if recorded.cell_id is not None and cell.cell_id is not None:
        return recorded.cell_id == cell.cell_id
    return recorded.position == cell.position and recorded.prompt == cell.prompt


def _above(turn: TurnSpan, document: Sequence[DocumentCell], position: int) -> bool:
    recorded = turn.cell
    if recorded is None:
        # A turn from no cell (the side panel, the terminal, a file older than cell records)
        # stays, unless its prompt is that of a cell the document shows at or below this one.
        found = _index(document, lambda known: known.prompt == prompt_digest(turn.prompt))
        return found is None or found < position
    if recorded.cell_id is not None:
        found = _index(document, lambda known: known.cell_id == recorded.cell_id)
    else:  # recorded by a client that sends no cellId (a headless run): known by its prompt
        found = _index(document, lambda known: known.prompt == recorded.prompt)
    return found is not None and found < position  # None: the cell was deleted, or its prompt edited


def _index(document: Sequence[DocumentCell], matches: Callable[[DocumentCell], bool]) -> int | None:
    return next((index for index, known in enumerate(document) if matches(known)), None)


def _prefix(turns: tuple[TurnSpan, ...], keep: Callable[[TurnSpan], bool]) -> int:
    return next((index for index, turn in enumerate(turns) if not keep(turn)), len(turns))


__all__ = ["Continuation", "DocumentCell", "plan_continuation", "prompt_digest", "same_cell"]
