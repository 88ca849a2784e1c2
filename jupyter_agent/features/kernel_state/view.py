"""``%agent diff`` and ``%agent undo``: a step's variables beside its files (notebook layer).

Undo of one step is all or nothing for conflicts: when a variable or a file no longer holds what
the agent left, nothing is restored and the report names it. A value changed in place with no
copy (over the snapshot limit, or not named by the code) keeps the agent's change, and the
report says so; everything else of the step is restored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, MutableMapping

from jupyter_agent.features.kernel_state.undo_store import MAX_STEPS, NamespaceUndo, history_for
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import Subcommand, session_argument, session_named
from jupyter_agent.notebook.views import FeatureViews, diff_sections

if TYPE_CHECKING:
    import argparse

    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.session_manager import AgentSession


def namespace_sections(session: AgentSession) -> tuple[str, str]:
    """The namespace changes of the session's steps not undone (markdown, text); empty if none."""
    steps = history_for(str(session.path)).pending()
    if not steps:
        return "", ""
    markdown = ["**Variables** (this kernel), per step:"]
    text = ["variables (this kernel), per step:"]
    for entry in steps:
        changes = entry.changes()
        markdown.append(f"- step {entry.step}: " + ", ".join(f"`{change.text}`" for change in changes))
        text.append(f"  step {entry.step}: " + ", ".join(change.text for change in changes))
    return "\n".join(markdown), "\n".join(text)


def diff_report(session: AgentSession, cells: tuple[str, str] = ("", "")) -> Report:
    """Variables per step, the notebook cells the agent edited (``cells``: markdown, text), then the files as diffs."""
    names_md, names_text = namespace_sections(session)
    changes = session.snapshots.diff()
    if not changes and not names_md and not cells[0]:
        return Report("The agent has not changed any file, variable or notebook cell in this session.")
    parts = [f"**{change.status}** `{change.path}`\n\n```diff\n{change.diff}\n```" for change in changes]
    text = [f"{change.status} {change.path}\n{change.diff}" for change in changes]
    for markdown, plain in reversed([(names_md, names_text), cells]):
        if markdown:
            parts.insert(0, markdown)
            text.insert(0, plain)
    return Report("\n\n".join(parts), "\n".join(text))


def undo_report(session: AgentSession, namespace: MutableMapping[str, object], step: int | None) -> Report:
    """Restores one step's files and variables (default: the agent's latest step that changed either)."""
    history = history_for(str(session.path))
    try:
        entry = session.snapshots.find(step, also={change.seq for change in history.pending()})
    except ValueError as error:
        return Report(str(error).capitalize() + ".")
    check = history.undo(entry.seq, namespace, dry_run=True)
    if check is not None and not check.ok:
        lines = [f"- `{name}`: {reason}" for name, reason in check.conflicts.items()]
        return Report(f"Nothing restored: these variables changed since the agent's step {entry.step}:\n" + "\n".join(lines))
    result = session.snapshots.undo(seq=entry.seq)
    if not result.ok:
        lines = [f"- `{conflict.path}`: {conflict.reason}" for conflict in result.conflicts]
        return Report("Nothing restored: these files changed since the agent wrote them:\n" + "\n".join(lines))
    names = history.undo(entry.seq, namespace)
    lines = [f"- `{path}`" for path in result.restored]
    lines += _variable_lines(names)
    if entry.seq in history.forgotten:
        lines.append(f"- (its variables are no longer kept: undo keeps them for the latest {MAX_STEPS} steps)")
    return Report(f"Restored step {result.step}:\n" + ("\n".join(lines) or "- (nothing had changed)"))


def _variable_lines(names: NamespaceUndo | None) -> list[str]:
    if names is None:
        return []
    lines = [f"- variable `{name}`: its value from before the step" for name in names.restored]
    lines += [f"- variable `{name}`: removed (the step added it)" for name in names.removed]
    lines += [
        f"- variable `{name}` **not restored** ({reason}): it keeps the agent's change"
        for name, reason in names.not_restored.items()
    ]
    return lines


def _diff(magics: AgentMagics, args: argparse.Namespace) -> Report:
    """Variables per step, what the other features changed (the notebook cells), then the files."""
    session = session_named(magics, args.session)
    others = diff_sections(session)
    return diff_report(session, ("\n\n".join(md for md, _ in others), "\n".join(text for _, text in others)))


def _undo(magics: AgentMagics, session: AgentSession, step: int | None) -> Report:
    return undo_report(session, magics.shell.user_ns if magics.shell is not None else {}, step)


DIFF_COMMAND = Subcommand("diff", "What the agent changed: variables per step, files as diffs.", _diff, (session_argument(),))

# Last in line for %agent undo: a step's files and variables (the notebook tools' edits come first).
VIEWS = FeatureViews(commands=(DIFF_COMMAND,), undo=_undo)

__all__ = ["DIFF_COMMAND", "VIEWS", "diff_report", "namespace_sections", "undo_report"]
