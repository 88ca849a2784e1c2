"""``%agent sessions`` and ``%agent history``: the notebook's sessions and what they hold.

A session's active branch is what its next turn continues; the turns a re-run cell replaced stay
on branches of their own, listed under the session and shown with ``%agent history --branch N``.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from jupyter_agent.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    without_turn_context,
)
from jupyter_agent.notebook.panel.markdown import safe_markdown, unclosed_fence
from jupyter_agent.notebook.panel.transcript_document import fenced
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import arg

if TYPE_CHECKING:
    from jupyter_agent.messages import ImageContent
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.session.branches import BranchInfo

HISTORY_CHARS = 600  # per message in %agent history: enough to recognise it
HISTORY_LINES = 8
PROMPT_CHARS = 40  # of each replaced turn's prompt in %agent sessions

SESSIONS_SUMMARY = "The notebook's sessions (messages, last activity, model, cost) and the turns re-runs replaced."
SESSIONS_ARGUMENTS = (
    arg("--adopt", metavar="OLD.agent", help="bring another folder's sessions here (e.g. after a rename outside JupyterLab)"),
)
HISTORY_SUMMARY = "Every message of a session, summarized ones included; --branch N shows a replaced branch."
HISTORY_ARGUMENTS = (
    arg("--branch", type=int, metavar="N", help="a branch %%agent sessions lists (the turns a re-run replaced)"),
)


def sessions_command(magics: AgentMagics, args: argparse.Namespace) -> Report:
    from jupyter_agent.session import SessionStore, list_sessions

    if getattr(args, "adopt", None):
        from jupyter_agent.notebook.session_moves import adopt_report

        return adopt_report(magics, args.adopt)
    current = magics.sessions.current_name()
    infos = list_sessions(magics.sessions.folder)
    if not infos:
        return Report("No sessions yet: run a `%%agent` cell to start one.")
    rows = ["| session | messages | last activity | model | cost |", "|---|---|---|---|---|"]
    lines, replaced_md, replaced_text = [], [], []
    for info in infos:
        when = info.last_activity.astimezone().strftime("%Y-%m-%d %H:%M") if info.last_activity else "-"
        marker = " (current)" if info.name == current else ""
        cost = f"${info.total_cost_usd:.4f}"
        rows.append(f"| {info.name}{marker} | {info.message_count} | {when} | {info.model or '-'} | {cost} |")
        lines.append(f"{info.name}{marker}: {info.message_count} messages, {when}, {info.model or '-'}, {cost}")
        for branch in SessionStore(info.path, read_only=True).branches()[1:]:
            described = _branch_line(info.name, branch)
            if described:
                replaced_md.append(f"- {described[0]}")
                replaced_text.append(f"  {described[1]}")
    markdown, text = "\n".join(rows), "\n".join(lines)
    if replaced_md:
        markdown += "\n\n**Replaced turns** (a cell run again redid them; each branch is kept):\n\n" + "\n".join(replaced_md)
        text += "\nReplaced turns (kept on branches):\n" + "\n".join(replaced_text)
    return Report(markdown, text)


def _branch_line(session: str, branch: BranchInfo) -> tuple[str, str] | None:
    turns = branch.own_turns
    if not turns:
        return None  # nothing of its own to read
    prompts = ", ".join(f"“{_short(turn.prompt)}”" for turn in turns)
    when = _when(branch.last_activity)
    count = f"{len(turns)} turn{'s' if len(turns) != 1 else ''}"
    command = f"%agent history -s {session} --branch {branch.number}"
    return (
        f"`{session}` branch {branch.number}: {count} ({prompts}), last active {when}: `{command}`",
        f"{session} branch {branch.number}: {count} ({prompts}), last active {when}: {command}",
    )


def history_command(magics: AgentMagics, args: argparse.Namespace) -> Report:
    from jupyter_agent.notebook.subcommand_parser import session_named

    session = session_named(magics, args.session)
    number = getattr(args, "branch", None)
    if number is None:
        messages, title = session.store.history(), ""
    else:
        branches = session.store.branches()
        if not 0 < number < len(branches):
            known = ", ".join(str(branch.number) for branch in branches[1:]) or "none"
            raise UsageError(f"session {session.name!r} has no branch {number} (its branches: {known}; see %agent sessions)")
        messages = branches[number].history()
        title = f"**Branch {number} of session `{session.name}`** (replaced; not what the next turn continues)"
    if not messages:
        return Report(f"Session `{session.name}` is empty.")
    markdown, text = ([title] if title else []), ([title.replace("**", "").replace("`", "")] if title else [])
    for message in messages:
        md, plain = _history_entry(message)
        markdown.append(md)
        text.append(plain)
    return Report("\n\n".join(markdown), "\n".join(text))


def _history_entry(message: Message) -> tuple[str, str]:
    if isinstance(message, ToolResultMessage):
        body = _clip(_blocks_text(message.content), HISTORY_LINES)
        mark = "✗" if message.is_error else "✓"
        return (
            f"{mark} `{message.tool_name}` result:\n\n{fenced(body, 'text')}",
            f"  {mark} {message.tool_name}: {' '.join(body.split())[:200]}",
        )
    who = "You" if isinstance(message, UserMessage) else "Agent"
    texts: list[str]
    calls: list[ToolCall]
    if isinstance(message, UserMessage):
        content = message.content
        written = [content] if isinstance(content, str) else [block.text for block in content if isinstance(block, TextContent)]
        texts, calls = [without_turn_context(text) for text in written], []
    else:
        texts, calls = [block.text for block in message.content if isinstance(block, TextContent)], message.tool_calls
    parts = [text for text in texts if text.strip()]
    said = _clip("\n\n".join(parts), HISTORY_LINES, markdown=True) if parts else ""
    # The model's Markdown with its raw HTML and images made inert: the listing is kept in the notebook.
    md = f"**{who}:** {safe_markdown(said) if isinstance(message, AssistantMessage) else said}".rstrip()
    plain = f"{who}: {' '.join(said.split())[:HISTORY_CHARS]}".rstrip()
    for call in calls:
        arguments = _clip(_call_text(call.arguments), 4)
        md += f"\n\n→ `{call.name}`\n{fenced(arguments)}"
        plain += f"\n  → {call.name} {' '.join(arguments.split())[:200]}"
    return md, plain


def _blocks_text(content: list[TextContent | ImageContent]) -> str:
    return "\n".join(block.text if block.type == "text" else "[image]" for block in content)


def _call_text(arguments: dict[str, object]) -> str:
    if set(arguments) == {"code"} or set(arguments) == {"command"}:
        return str(next(iter(arguments.values())))
    return json.dumps(arguments, ensure_ascii=False)


def _clip(text: str, lines: int, *, markdown: bool = False) -> str:
    """The first ``lines`` lines (at most ``HISTORY_CHARS``); Markdown cut inside a code fence gets
    the fence closed, so the rest of the listing is not read as code. Text shown inside a fence of
    ours keeps its backticks: ``fenced`` picks a fence it cannot close."""
    kept = text.strip().splitlines()
    clipped = "\n".join(kept[:lines])
    if len(clipped) > HISTORY_CHARS:
        clipped = clipped[:HISTORY_CHARS] + "…"
    if markdown and (marker := unclosed_fence(clipped)):
        clipped += f"\n{marker}"
    return clipped + (f"\n… ({len(kept) - lines} more lines)" if len(kept) > lines else "")


def _short(prompt: str) -> str:
    words = " ".join(prompt.split())
    return words if len(words) <= PROMPT_CHARS else words[: PROMPT_CHARS - 1] + "…"


def _when(ms: int | None) -> str:
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M") if ms else "-"


__all__ = [
    "HISTORY_ARGUMENTS",
    "HISTORY_SUMMARY",
    "SESSIONS_ARGUMENTS",
    "SESSIONS_SUMMARY",
    "history_command",
    "sessions_command",
]
