"""Agent cells are the conversation, in the kernel: which cell a turn comes from, where its turn
goes on the session's branch (``session/cells.py`` decides), and the note that says so.

The magic makes a ``CellRef`` while the cell's execute request is the kernel's parent message
(JupyterLab's ``cellId``, the cell's position among this kernel's agent cells, a digest of its
prompt). The runner calls ``place_cell_turn`` once the session is the turn's (its lock held),
before the turn's features open and its first request: a re-run cell branches the session just
before its earlier turn there; ``start_cell_turn`` then records the request and says so.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_agent.session.cells import Continuation, DocumentCell, plan_continuation, prompt_digest
from jupyter_agent.session.records import CellRef

if TYPE_CHECKING:
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.model import Model
    from jupyter_agent.notebook.runner import Turn
    from jupyter_agent.session import SessionStore
    from jupyter_agent.session.turns import TurnSpan

# This kernel process: a headless run keeps the turns its own kernel made (``session/cells.py``).
KERNEL_RUN = secrets.token_hex(4)
AGENT_CELL = "%%agent"
# How long a turn waits for the live notebook's cell order before using the saved file.
LIVE_DOCUMENT_TIMEOUT = 2.0
NEW_SESSION_HINT = "%%agent --new starts afresh"


_positions = itertools.count()  # the agent cells this kernel ran


@dataclass(frozen=True)
class CellTurn:
    """What a turn knows of its cell: who it is, whether a headless run executes the notebook
    from the top, and how to read the notebook's cells (to know which turns are above it)."""

    ref: CellRef
    headless_run: bool
    read_document: Callable[[], Awaitable[list[DocumentCell] | None]] | None = None


def cell_ref(cell_id: str | None, position: int, prompt: str, execution_count: int | None = None) -> CellRef:
    return CellRef(
        cell_id=cell_id, position=position, prompt=prompt_digest(prompt), kernel=KERNEL_RUN, execution_count=execution_count
    )


def cell_turn(shell: object, prompt: str, cell_id: str | None, headless_run: bool, notebook: Path | None) -> CellTurn | None:
    """The cell now executing, which runs an agent turn with ``prompt`` (called from the magic);
    ``shell``: the kernel's IPython shell (its execution count, its kernel's comm to the live notebook).

    None for a turn the side panel asked for (its own renderer): it comes from no cell, so it is
    always added after the newest turn."""
    from jupyter_agent.notebook import frontend

    if frontend.renderer_override.get() is not None:
        return None
    ref = cell_ref(cell_id, next(_positions), prompt, getattr(shell, "execution_count", None))
    return CellTurn(ref, headless_run, lambda: read_document(shell, notebook))


def agent_prompt(source: str) -> str | None:
    """The prompt of a ``%%agent`` cell's source (None: not an agent cell)."""
    first, _, body = source.lstrip().partition("\n")
    return body.strip() if first.split(" ", 1)[0] == AGENT_CELL else None


def document_cells(cells: Sequence[Mapping[str, object]]) -> list[DocumentCell]:
    """Every cell of a notebook in order (nbformat or the live document's cells), agent cells with their prompt."""
    found = []
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        prompt = agent_prompt(source) if cell.get("cell_type", "code") == "code" else None
        cell_id = cell.get("id")
        found.append(DocumentCell(str(cell_id) if cell_id else None, prompt_digest(prompt) if prompt is not None else ""))
    return found


def saved_document(notebook: Path | None) -> list[DocumentCell] | None:
    """The cells of the saved notebook file, or None when there is none to read (or it holds none).

    Read as the turn's outline reads it (``notebook_cells``: outputs skipped where they lie, the
    result kept until the file changes): a big notebook is not parsed again at every turn.
    """
    if notebook is None or not notebook.is_file():
        return None
    from jupyter_agent.features.notebook_tools import notebook_cells

    cells = notebook_cells(notebook)
    return document_cells(cells) if cells else None


async def read_document(shell: object, notebook: Path | None) -> list[DocumentCell] | None:
    """The notebook's cells as the user sees them: the live document (the lab extension), else the saved file."""
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend

    frontend = CommNotebookFrontend(shell)
    if frontend.connected:
        import asyncio

        from jupyter_agent.features.notebook_tools import FrontendError

        try:
            return document_cells(await asyncio.wait_for(frontend.read_cells(), LIVE_DOCUMENT_TIMEOUT))
        except (FrontendError, asyncio.TimeoutError):
            pass  # a busy or closed page: the saved file says nearly as much
    return saved_document(notebook)


@dataclass(frozen=True)
class Placement:
    """Where a cell's turn went, and the notebook's cells when they were read to decide it."""

    plan: Continuation
    document: list[DocumentCell] | None = None


async def place_turn(
    store: SessionStore,
    cell: CellRef | None,
    *,
    append: bool,
    headless_run: bool,
    document: Callable[[], Awaitable[list[DocumentCell] | None]] | None = None,
) -> Placement | None:
    """Where the turn of ``cell`` goes; branches the session when it replaces turns. None: no cell (appended)."""
    if cell is None:
        return None
    turns = store.turns()
    known = await document() if cell.cell_id is not None and document is not None and turns else None
    plan = plan_continuation(turns, cell, append=append, headless_run=headless_run, document=known)
    if plan.branch_before is not None:
        store.redo(plan.branch_before.start)
    return Placement(plan, known)


async def place_cell_turn(turn: Turn) -> Placement | None:
    """Places the turn of a cell on its session's branch (a re-run cell branches the session just
    before its earlier turn); before the turn's features open, so that they read the branch the
    turn continues (its plan). None: a turn from no cell, appended."""
    cell = turn.request.cell
    if cell is None:
        return None
    return await place_turn(
        turn.session.store, cell.ref, append=turn.settings.append, headless_run=cell.headless_run, document=cell.read_document
    )


async def start_cell_turn(
    turn: Turn,
    placement: Placement | None,
    options: Mapping[str, object],
    system: str,
    tools: Sequence[AgentTool],
    lead: str = "",
) -> None:
    """Records the turn's request (``options``: its non-secret settings) where ``place_cell_turn``
    put it and says what it continues: every request carries ``system`` and ``tools`` too.

    ``lead``: a note already shown (why a replay runs live), kept in front of this one."""
    from jupyter_agent.model.tokens import estimate_history_tokens, estimate_overhead
    from jupyter_agent.notebook.session_moves import moved_sessions_note

    store, cell = turn.session.store, turn.request.cell
    lead = " ".join(part for part in (lead, moved_sessions_note(turn.session.path.parent)) if part)
    earlier = store.turns()
    model = turn.resolved.model if turn.resolved is not None else None
    store.record_request(model, options, cell=cell.ref if cell is not None else None)
    tokens = estimate_history_tokens(store.messages()) + estimate_overhead(system, [tool.spec() for tool in tools])
    try:
        note = continuation_note(turn.session.name, earlier, placement, tokens, model)
        turn.renderer.note(f"{lead} {note}" if lead else note)
    except Exception:  # noqa: BLE001 - a renderer failure must not stop the turn
        pass


def continuation_note(
    session: str, earlier: Sequence[TurnSpan], placement: Placement | None, tokens: int, model: Model | None
) -> str:
    """What the turn continues, said before its first request: ``earlier`` turns (those it
    continues), the tokens they and the fixed prefix take, their cost, and the way out."""
    plan = placement.plan if placement is not None else None
    replaced = ""
    if plan is not None and plan.replaced:
        gone = len(plan.replaced)
        what = "this cell's earlier turn" if plan.redoes and gone == 1 else f"{gone} turn{'s' if gone != 1 else ''}"
        replaced = f"it replaces {what} (kept on a branch: %agent sessions lists it)"
    if not earlier:
        return f"This turn starts session {session} over: {replaced}." if replaced else f"This turn starts session {session}."
    count = f"{len(earlier)} earlier turn{'s' if len(earlier) != 1 else ''}"
    cells = _cell_numbers(earlier, placement.document if placement is not None else None)
    text = f"This turn continues session {session}: {count}{f' ({cells})' if cells else ''}, ≈ {_tokens(tokens)} tokens"
    cost = _cached_cost(model, tokens)
    if cost is not None:
        text += f", ≈ ${cost:.4f} with caching"
    return f"{text}{'; ' + replaced if replaced else ''}. {NEW_SESSION_HINT}."


def _cell_numbers(turns: Sequence[TurnSpan], document: list[DocumentCell] | None) -> str:
    if not document:
        return ""
    numbers = []
    for turn in turns:
        cell = turn.cell
        index = next((i for i, known in enumerate(document) if cell and cell.cell_id and known.cell_id == cell.cell_id), None)
        if index is None:
            return ""  # some turn is not in the document: numbers for the others would mislead
        numbers.append(str(index + 1))
    return f"cell{'s' if len(numbers) != 1 else ''} {', '.join(numbers)}"


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f} k" if count >= 1000 else str(count)


def _cached_cost(model: Model | None, tokens: int) -> float | None:
    """The cost of sending ``tokens`` as a cached prefix (None: the model's prices are unknown)."""
    if model is None or not model.cost.input:
        return None
    from jupyter_agent.runtime.spend import CACHE_READ_FACTOR

    rate = model.cost.cache_read or model.cost.input * CACHE_READ_FACTOR
    return tokens * rate / 1_000_000


__all__ = [
    "KERNEL_RUN",
    "CellTurn",
    "Placement",
    "agent_prompt",
    "cell_ref",
    "cell_turn",
    "continuation_note",
    "document_cells",
    "place_cell_turn",
    "place_turn",
    "read_document",
    "saved_document",
    "start_cell_turn",
]
