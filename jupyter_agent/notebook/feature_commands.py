"""``%agent plan`` and ``%agent memory [show NAME | delete NAME | undo NAME]``.

Both read the files beside the notebook, so they work after a kernel restart and whether or not
memory is turned on for turns (the notes stay until deleted).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryStore
from jupyter_agent.features.plan.file import PlanFile
from jupyter_agent.features.plan.state import plan_markdown, render_plan_text
from jupyter_agent.notebook.report import Report

MEMORY_OFF_HINT = "Turn memory on with `%%agent --memory` or `%config AgentMagics.memory = True`."


def plan_report(session: Any) -> Report:
    plan = PlanFile(session.path).load()
    if not plan:
        return Report(f"Session `{session.name}` has no plan yet.")
    done = sum(item.status == "done" for item in plan.items)
    heading = f"**Plan of session `{session.name}`** ({done}/{len(plan.items)} done)"
    return Report(f"{heading}\n\n{plan_markdown(plan)}", render_plan_text(plan))


def memory_command(sessions_folder: Path, tokens: list[str], usage: str) -> Report:
    store = MemoryStore(Path(sessions_folder) / MEMORY_FOLDER)
    action, rest = (tokens[0], tokens[1:]) if tokens else ("list", [])
    if action == "list" and not rest:
        return _listing(store)
    if action == "undo" and len(rest) == 1:
        return _undo(store, rest[0])
    if action in ("show", "delete") and len(rest) == 1:
        return _show(store, rest[0]) if action == "show" else _delete(store, rest[0])
    if action in ("show", "delete", "undo"):
        raise UsageError(f"%agent memory {action} takes one note name\n{usage}")
    raise UsageError(
        f"unknown memory action {action!r}: use %agent memory, memory show NAME, memory delete NAME or memory undo NAME\n{usage}"
    )


def _listing(store: MemoryStore) -> Report:
    facts = store.list()
    if not facts:
        return Report(f"No memory notes yet. {MEMORY_OFF_HINT}", f"No memory notes yet. {_plain(MEMORY_OFF_HINT)}")
    rows = ["| note | summary | updated |", "|---|---|---|"]
    rows += [f"| `{fact.name}` | {_cell(fact.summary)} | {fact.updated[:16] or '-'} |" for fact in facts]
    lines = [f"{fact.name}: {fact.summary}" for fact in facts]
    where = f"\n\n*{len(facts)} note{'s' if len(facts) != 1 else ''} in `{store.folder}`*"
    return Report("\n".join(rows) + where, "\n".join(lines))


def _show(store: MemoryStore, name: str) -> Report:
    fact = store.read(name)
    if fact is None:
        raise UsageError(_missing(store, name))
    text = f"{fact.name}: {fact.summary}\n(updated {fact.updated or 'unknown'})\n\n{fact.content}"
    return Report(f"**`{fact.name}`**: {_cell(fact.summary)}\n\n{fact.content}", text)


def _delete(store: MemoryStore, name: str) -> Report:
    change = store.delete(name)
    if change is None:
        raise UsageError(_missing(store, name))
    return Report(f"Deleted the memory note `{change.name}`.")


def _undo(store: MemoryStore, name: str) -> Report:
    from jupyter_agent.features.memory.undo_log import MemoryUndoLog

    try:
        return Report(MemoryUndoLog(store).undo(name))
    except LookupError as error:
        raise UsageError(str(error)) from None


def _missing(store: MemoryStore, name: str) -> str:
    names = store.names()
    return f"no memory note named {name!r}; notes: {', '.join(names) if names else 'none yet'}"


def _cell(text: str) -> str:
    # A summary is one line of user-visible text inside a Markdown table.
    return text.replace("|", "\\|")


def _plain(markdown: str) -> str:
    return markdown.replace("`", "")


__all__ = ["memory_command", "plan_report"]
