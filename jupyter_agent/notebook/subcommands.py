"""``%agent SUBCOMMAND``: inspect and steer sessions from any cell.

Results are shown as ``Report`` objects: Markdown in notebooks, plain text in the terminal.
Unknown subcommands and bad arguments raise a short ``UsageError`` naming the subcommands.
"""

from __future__ import annotations

import json
import shlex
from types import SimpleNamespace
from typing import Any, Callable

from IPython.core.error import UsageError

from jupyter_agent.notebook import runner
from jupyter_agent.notebook.config import AgentConfig
from jupyter_agent.notebook.feature_commands import memory_command, plan_report
from jupyter_agent.notebook.model_resolution import choose_model
from jupyter_agent.notebook.report import Report

USAGE = """\
usage: %agent sessions | usage | history | plan | memory [show|delete|undo NAME] |
              steer TEXT | follow-up TEXT | stop | wait | undo [STEP] | diff | model [NAME] |
              config | materialize [SESSION] | mcp [tools NAME | restart NAME] |
              session-file [PATH] | fix [TEXT] | help
usage, history, plan, stop, wait and diff take -s/--session NAME (default: the session of the
latest %%agent cell, else the current one)."""
HISTORY_CHARS = 600  # per message in %agent history: enough to recognise it
HISTORY_LINES = 8


def run_subcommand(magics: Any, line: str) -> Report | None:
    try:
        tokens = shlex.split(line)
    except ValueError as error:
        raise UsageError(f"{error}\n{USAGE}") from None
    if not tokens or tokens[0] in ("help", "-h", "--help"):
        return Report(f"```\n{USAGE}\n```", USAGE)
    name, rest = tokens[0], tokens[1:]
    handler = HANDLERS.get(name)
    if handler is None:
        raise UsageError(f"unknown subcommand {name!r}\n{USAGE}")
    return handler(magics, rest, _raw_rest(line, name))


def _raw_rest(line: str, name: str) -> str:
    """The text after the subcommand, verbatim (steer text keeps its quotes and spacing)."""
    return line.strip()[len(name):].strip()


def session_from(magics: Any, tokens: list[str]):
    session_name = None
    if tokens[:1] in (["-s"], ["--session"]):
        if len(tokens) < 2:
            raise UsageError(f"{tokens[0]} needs a session name\n{USAGE}")
        session_name = tokens[1]
    elif tokens:
        raise UsageError(f"unexpected argument {tokens[0]!r}\n{USAGE}")
    try:
        return magics.sessions.get(session_name) if session_name else magics.sessions.recent()
    except ValueError as error:
        raise UsageError(str(error)) from None


def _sessions(magics: Any, tokens: list[str], raw: str) -> Report:
    from jupyter_agent.session import list_sessions

    current = magics.sessions.current_name()
    infos = list_sessions(magics.sessions.folder)
    if not infos:
        return Report("No sessions yet: run a `%%agent` cell to start one.")
    rows = ["| session | messages | last activity | model | cost |", "|---|---|---|---|---|"]
    lines = []
    for info in infos:
        when = info.last_activity.astimezone().strftime("%Y-%m-%d %H:%M") if info.last_activity else "-"
        marker = " (current)" if info.name == current else ""
        cost = f"${info.total_cost_usd:.4f}"
        rows.append(f"| {info.name}{marker} | {info.message_count} | {when} | {info.model or '-'} | {cost} |")
        lines.append(f"{info.name}{marker}: {info.message_count} messages, {when}, {info.model or '-'}, {cost}")
    return Report("\n".join(rows), "\n".join(lines))


def _usage(magics: Any, tokens: list[str], raw: str) -> Report:
    session = session_from(magics, tokens)
    usage = session.store.usage()
    fields = vars(usage)
    text = ", ".join(f"{key} {value:.4f}" if isinstance(value, float) else f"{key} {value}" for key, value in fields.items())
    table = ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in fields.items()]
    return Report(f"**Usage of session `{session.name}`**\n\n" + "\n".join(table), f"session {session.name}: {text}")


def _history(magics: Any, tokens: list[str], raw: str) -> Report:
    session = session_from(magics, tokens)
    messages = session.store.history()
    if not messages:
        return Report(f"Session `{session.name}` is empty.")
    markdown, text = [], []
    for message in messages:
        md, plain = _history_entry(message)
        markdown.append(md)
        text.append(plain)
    return Report("\n\n".join(markdown), "\n".join(text))


def _history_entry(message: Any) -> tuple[str, str]:
    if message.role == "tool_result":
        body = _clip(_blocks_text(message.content), HISTORY_LINES)
        mark = "✗" if message.is_error else "✓"
        return f"{mark} `{message.tool_name}` result:\n\n```text\n{body}\n```", f"  {mark} {message.tool_name}: {' '.join(body.split())[:200]}"
    who = "You" if message.role == "user" else "Agent"
    content = message.content if not isinstance(message.content, str) else [SimpleNamespace(type="text", text=message.content)]
    parts = [block.text for block in content if getattr(block, "type", "") == "text" and block.text.strip()]
    calls = [block for block in content if getattr(block, "type", "") == "tool_call"]
    said = _clip("\n\n".join(parts), HISTORY_LINES) if parts else ""
    md = f"**{who}:** {said}".rstrip()
    plain = f"{who}: {' '.join(said.split())[:HISTORY_CHARS]}".rstrip()
    for call in calls:
        arguments = _clip(_call_text(call.arguments), 4)
        md += f"\n\n→ `{call.name}`\n```\n{arguments}\n```"
        plain += f"\n  → {call.name} {' '.join(arguments.split())[:200]}"
    return md, plain


def _blocks_text(content: list) -> str:
    return "\n".join(block.text if getattr(block, "type", "") == "text" else "[image]" for block in content)


def _call_text(arguments: dict) -> str:
    if set(arguments) == {"code"} or set(arguments) == {"command"}:
        return str(next(iter(arguments.values())))
    return json.dumps(arguments, ensure_ascii=False)


def _clip(text: str, lines: int) -> str:
    kept = text.strip().splitlines()
    clipped = "\n".join(kept[:lines]).replace("```", "ʼʼʼ")
    if len(clipped) > HISTORY_CHARS:
        clipped = clipped[:HISTORY_CHARS] + "…"
    return clipped + (f"\n… ({len(kept) - lines} more lines)" if len(kept) > lines else "")


def _active_turn(magics: Any):
    session = magics.sessions.recent()
    return session, session.run


def _steer(magics: Any, tokens: list[str], raw: str, kind: str = "steer") -> Report:
    if not raw:
        raise UsageError(f"%agent {kind} needs a message\n{USAGE}")
    session, run = _active_turn(magics)
    if run is None:
        raise UsageError(f"no agent turn is running in session {session.name!r}")
    delivered = run.steer(raw) if kind == "steer" else run.follow_up(raw)
    if not delivered:
        raise UsageError("the turn has already ended")
    when = "at the next step" if kind == "steer" else "when the agent would otherwise finish"
    return Report(f"Queued for the agent, delivered {when}.")


def _follow_up(magics: Any, tokens: list[str], raw: str) -> Report:
    return _steer(magics, tokens, raw, kind="follow_up")


def _stop(magics: Any, tokens: list[str], raw: str) -> Report:
    session = session_from(magics, tokens)
    stopped = 0
    for turn in runner.turns_of(session):
        turn.stop()
        stopped += 1
    return Report("Stopping the agent." if stopped else f"Nothing is running in session `{session.name}`.")


def _wait(magics: Any, tokens: list[str], raw: str) -> Report | None:
    """Reached only where the cell could not be made to await (see the cell transformer)."""
    import asyncio

    session = session_from(magics, tokens)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        from IPython.core.async_helpers import get_asyncio_loop

        get_asyncio_loop().run_until_complete(runner.wait_idle(session))
        return None
    raise UsageError("%agent wait must be on a line of its own at the top level of a cell (it awaits the turn)")


def _undo(magics: Any, tokens: list[str], raw: str) -> Report:
    step = None
    if tokens:
        if not tokens[0].isdigit():
            raise UsageError(f"%agent undo takes a step number, got {tokens[0]!r}\n{USAGE}")
        step = int(tokens[0])
    session = magics.sessions.recent()
    notebook_step = _notebook_undo_step(session, step)
    if notebook_step is not None:
        return _undo_notebook_edits(magics, session, notebook_step)
    try:
        result = session.snapshots.undo(step)
    except ValueError as error:
        return Report(str(error).capitalize() + ".")
    if not result.ok:
        lines = [f"- `{conflict.path}`: {conflict.reason}" for conflict in result.conflicts]
        return Report("Nothing restored: these files changed since the agent wrote them:\n" + "\n".join(lines))
    restored = "\n".join(f"- `{path}`" for path in result.restored) or "- (no files)"
    return Report(f"Restored the files of step {result.step}:\n{restored}")


def _notebook_undo_step(session: Any, step: int | None) -> int | None:
    """The step whose notebook edits ``%agent undo`` reverts: the given one, or the newest if no file change is newer."""
    from jupyter_agent.features.notebook_tools import NotebookEditLog

    edits = NotebookEditLog.for_session(session.path).edits()
    steps = {edit.step for edit in edits}
    if step is not None:
        return step if step in steps else None
    if not steps:
        return None
    newest = max(steps)
    file_steps = [e.step for e in session.snapshots.steps() if not e.undone] if session.snapshots is not None else []
    return newest if not file_steps or newest >= max(file_steps) else None


def _undo_notebook_edits(magics: Any, session: Any, step: int) -> Report:
    from jupyter_agent.features.notebook_tools import NotebookEditLog
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend

    frontend = CommNotebookFrontend(magics.shell)
    if not frontend.connected:
        return Report("Nothing reverted: undoing notebook edits needs the JupyterLab extension connected "
                      "to this notebook.")
    edits = NotebookEditLog.for_session(session.path).take_step(step)
    for edit in edits:  # newest first
        frontend.send_edit(edit.inverse())
    lines = "\n".join(f"- {edit.op} of cell `{edit.cell_id}`" for edit in edits)
    return Report(f"Reverting the notebook edits of step {step}:\n{lines}")


def _diff(magics: Any, tokens: list[str], raw: str) -> Report:
    session = session_from(magics, tokens)
    changes = session.snapshots.diff()
    if not changes:
        return Report("The agent has not changed any file in this session.")
    parts = [f"**{change.status}** `{change.path}`\n\n```diff\n{change.diff}\n```" for change in changes]
    text = "\n".join(f"{change.status} {change.path}\n{change.diff}" for change in changes)
    return Report("\n\n".join(parts), text)


def _model(magics: Any, tokens: list[str], raw: str) -> Report:
    session = magics.sessions.recent()
    if tokens:
        from jupyter_agent.notebook.model_resolution import check_model_name

        problem = check_model_name(tokens[0], AgentConfig.from_magics(magics).api_base or None)
        if problem:
            raise UsageError(f"{problem}\nThe session keeps its model.")
        session.model_name = tokens[0]
        return Report(f"Session `{session.name}` now uses `{tokens[0]}` for its next turns.")
    config = AgentConfig.from_magics(magics)
    choice = choose_model(None, session.model_name, config.model)
    return Report(f"Model: `{choice.name}` (from {choice.source}).")


def _config(magics: Any, tokens: list[str], raw: str) -> Report:
    config = AgentConfig.from_magics(magics)
    session = magics.sessions.recent()
    choice = choose_model(None, session.model_name, config.model)
    text = "\n".join([
        config.describe(),
        f"  model in use: {choice.name} (from {choice.source})",
        f"  notebook: {session.notebook or '(unknown: sessions are kept in the working folder)'}",
        f"  session: {session.name} ({session.path})",
        f"  workspace: {session.workspace}",
    ])
    return Report(f"```\n{text}\n```", text)


def _plan(magics: Any, tokens: list[str], raw: str) -> Report:
    return plan_report(session_from(magics, tokens))


def _memory(magics: Any, tokens: list[str], raw: str) -> Report:
    return memory_command(magics.sessions.folder, tokens, USAGE)


def _session_file(magics: Any, tokens: list[str], raw: str) -> Report:
    """Where this kernel's sessions are kept; ``PATH`` moves them (headless runs the kernel cannot place)."""
    from pathlib import Path

    from jupyter_agent.session import SessionLockedError

    if len(tokens) > 1:
        raise UsageError(f"%agent session-file takes one path, e.g. analysis.agent/main.jsonl\n{USAGE}")
    if tokens:
        try:
            session = magics.sessions.choose_file(Path(tokens[0]))
        except (ValueError, SessionLockedError) as error:
            raise UsageError(str(error)) from None
        text = f"Sessions of this kernel now go to {session.path.parent}; the current one is {session.name} ({session.path})."
    else:
        session = magics.sessions.recent()
        text = f"Session {session.name}: {session.path}"
    return Report(text, text)


def _materialize(magics: Any, tokens: list[str], raw: str) -> Report:
    """The last turn's Python code as cells (through the lab extension, else the next input)."""
    from jupyter_agent.notebook.comm import materialize_last_turn

    if len(tokens) > 1:
        raise UsageError(f"%agent materialize takes at most a session name\n{USAGE}")
    try:
        return Report(materialize_last_turn(magics.shell, magics.sessions.folder, tokens[0] if tokens else None))
    except LookupError as error:
        raise UsageError(str(error).strip("'\"")) from None


def _mcp(magics: Any, tokens: list[str], raw: str) -> Report:
    from jupyter_agent.notebook.mcp_commands import mcp_command

    return mcp_command(magics, tokens, USAGE)


def _fix(magics: Any, tokens: list[str], raw: str) -> None:
    """A turn that fixes the last error (``TEXT``: what the user adds to the request)."""
    from jupyter_agent.notebook.fix import fix_prompt
    from jupyter_agent.tools.data_policy import DataPolicy

    config = AgentConfig.from_magics(magics)
    try:
        prompt = fix_prompt(magics.shell, DataPolicy(config.data_policy, config.sample_rows), raw)
    except LookupError as error:
        raise UsageError(str(error).strip("'\"")) from None
    magics.start_turn("", prompt, mentions=False)


HANDLERS: dict[str, Callable[..., Report | None]] = {
    "sessions": _sessions,
    "usage": _usage,
    "history": _history,
    "plan": _plan,
    "memory": _memory,
    "steer": _steer,
    "follow-up": _follow_up,
    "stop": _stop,
    "wait": _wait,
    "undo": _undo,
    "diff": _diff,
    "model": _model,
    "config": _config,
    "materialize": _materialize,
    "mcp": _mcp,
    "session-file": _session_file,
    "fix": _fix,
}
