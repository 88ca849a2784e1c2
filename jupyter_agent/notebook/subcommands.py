"""``%agent SUBCOMMAND``: inspect and steer sessions from any cell.

Results are shown as ``Report`` objects: Markdown in notebooks, plain text in the terminal.
``SUBCOMMANDS`` declares each subcommand's arguments beside its handler (``subcommand_parser``):
every one has ``--help``; unknown subcommands and bad arguments raise a short ``UsageError``.
"""

from __future__ import annotations

import argparse
import json
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from jupyter_agent.messages import without_turn_context
from jupyter_agent.notebook import runner
from jupyter_agent.notebook.config import AgentConfig
from jupyter_agent.notebook.feature_commands import memory_command, plan_report
from jupyter_agent.notebook.model_resolution import choose_model
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.serve_commands import SERVE_ARGUMENTS, SERVE_SUMMARY, serve_command
from jupyter_agent.notebook.site_limits import site_policy_line
from jupyter_agent.notebook.subcommand_parser import Subcommand, SubcommandTable, arg

if TYPE_CHECKING:
    from jupyter_agent.messages import ImageContent, TextContent
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.session_manager import AgentSession

USAGE = """\
usage: %agent sessions | usage | history | plan | memory [show|delete|undo NAME] |
              steer TEXT | follow-up TEXT | stop | wait | undo [STEP] | diff | model [NAME] |
              config | materialize [SESSION] | mcp [tools NAME | restart NAME] |
              serve [stop] | session-file [PATH] | fix [TEXT] | help
usage, history, plan, stop, wait and diff take -s/--session NAME (default: the session of the
latest %%agent cell, else the current one). %agent SUBCOMMAND --help describes one."""
HISTORY_CHARS = 600  # per message in %agent history: enough to recognise it
HISTORY_LINES = 8


def run_subcommand(magics: AgentMagics, line: str) -> Report | None:
    return SUBCOMMANDS.run(magics, line)


def session_named(magics: AgentMagics, name: str | None) -> AgentSession:
    """The session ``-s NAME`` names; without one, the latest turn's session, else the current one."""
    try:
        return magics.sessions.get(name) if name else magics.sessions.recent()
    except ValueError as error:
        raise UsageError(str(error)) from None


def wait_session(magics: AgentMagics, rest: str) -> AgentSession:
    """The session ``%agent wait [-s NAME]`` waits for (parsed like every subcommand)."""
    return session_named(magics, SUBCOMMANDS["wait"].parse(rest).session)


def _sessions(magics: AgentMagics, args: argparse.Namespace) -> Report:
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


def _usage(magics: AgentMagics, args: argparse.Namespace) -> Report:
    session = session_named(magics, args.session)
    usage = session.store.usage()
    fields = vars(usage)
    text = ", ".join(f"{key} {value:.4f}" if isinstance(value, float) else f"{key} {value}" for key, value in fields.items())
    table = ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in fields.items()]
    return Report(f"**Usage of session `{session.name}`**\n\n" + "\n".join(table), f"session {session.name}: {text}")


def _history(magics: AgentMagics, args: argparse.Namespace) -> Report:
    session = session_named(magics, args.session)
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
        return (
            f"{mark} `{message.tool_name}` result:\n\n```text\n{body}\n```",
            f"  {mark} {message.tool_name}: {' '.join(body.split())[:200]}",
        )
    who = "You" if message.role == "user" else "Agent"
    content = message.content if not isinstance(message.content, str) else [SimpleNamespace(type="text", text=message.content)]
    if message.role == "user":
        content = [SimpleNamespace(type="text", text=without_turn_context(b.text)) if b.type == "text" else b for b in content]
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


def _blocks_text(content: list[TextContent | ImageContent]) -> str:
    return "\n".join(block.text if block.type == "text" else "[image]" for block in content)


def _call_text(arguments: dict[str, object]) -> str:
    if set(arguments) == {"code"} or set(arguments) == {"command"}:
        return str(next(iter(arguments.values())))
    return json.dumps(arguments, ensure_ascii=False)


def _clip(text: str, lines: int) -> str:
    kept = text.strip().splitlines()
    clipped = "\n".join(kept[:lines]).replace("```", "ʼʼʼ")
    if len(clipped) > HISTORY_CHARS:
        clipped = clipped[:HISTORY_CHARS] + "…"
    return clipped + (f"\n… ({len(kept) - lines} more lines)" if len(kept) > lines else "")


def _steer(magics: AgentMagics, args: argparse.Namespace, kind: str = "steer") -> Report:
    session = magics.sessions.recent()
    turn = session.current
    if turn is None or turn.run is None:
        raise UsageError(f"no agent turn is running in session {session.name!r}")
    delivered = turn.steer(args.text) if kind == "steer" else turn.follow_up(args.text)
    if not delivered:
        raise UsageError("the turn has already ended")
    when = "at the next step" if kind == "steer" else "when the agent would otherwise finish"
    return Report(f"Queued for the agent, delivered {when}.")


def _follow_up(magics: AgentMagics, args: argparse.Namespace) -> Report:
    return _steer(magics, args, kind="follow_up")


def _stop(magics: AgentMagics, args: argparse.Namespace) -> Report:
    session = session_named(magics, args.session)
    stopped = 0
    for turn in runner.turns_of(session):
        turn.stop()
        stopped += 1
    return Report("Stopping the agent." if stopped else f"Nothing is running in session `{session.name}`.")


def _wait(magics: AgentMagics, args: argparse.Namespace) -> Report | None:
    """Reached only where the cell could not be made to await (see the cell transformer)."""
    import asyncio

    session = session_named(magics, args.session)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        from IPython.core.async_helpers import get_asyncio_loop

        get_asyncio_loop().run_until_complete(runner.wait_idle(session))
        return None
    raise UsageError("%agent wait must be on a line of its own at the top level of a cell (it awaits the turn)")


def _undo(magics: AgentMagics, args: argparse.Namespace) -> Report:
    step = args.step
    session = magics.sessions.recent()
    notebook_step = _notebook_undo_step(session, step)
    if notebook_step is not None:
        return _undo_notebook_edits(magics, session, notebook_step)
    from jupyter_agent.features.kernel_state.view import undo_report

    return undo_report(session, magics.shell.user_ns if magics.shell is not None else {}, step)


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
        return Report("Nothing reverted: undoing notebook edits needs the JupyterLab extension connected to this notebook.")
    edits = NotebookEditLog.for_session(session.path).take_step(step)
    for edit in edits:  # newest first
        frontend.send_edit(edit.inverse())
    lines = "\n".join(f"- {edit.op} of cell `{edit.cell_id}`" for edit in edits)
    return Report(f"Reverting the notebook edits of step {step}:\n{lines}")


def _diff(magics: AgentMagics, args: argparse.Namespace) -> Report:
    from jupyter_agent.features.kernel_state.view import diff_report

    return diff_report(session_named(magics, args.session))


def _model(magics: AgentMagics, args: argparse.Namespace) -> Report:
    session = magics.sessions.recent()
    if args.name:
        from jupyter_agent.notebook.model_resolution import check_model_name

        problem = check_model_name(args.name, AgentConfig.from_magics(magics).api_base or None)
        if problem:
            raise UsageError(f"{problem}\nThe session keeps its model.")
        session.model_name = args.name
        return Report(f"Session `{session.name}` now uses `{args.name}` for its next turns.")
    config = AgentConfig.from_magics(magics)
    choice = choose_model(None, session.model_name, config.model)
    return Report(f"Model: `{choice.name}` (from {choice.source}).")


def _config(magics: AgentMagics, args: argparse.Namespace) -> Report:
    config = AgentConfig.from_magics(magics)
    session = magics.sessions.recent()
    choice = choose_model(None, session.model_name, config.model)
    text = "\n".join(
        [
            config.describe(),
            f"  model in use: {choice.name} (from {choice.source})",
            f"  notebook: {session.notebook or '(unknown: sessions are kept in the working folder)'}",
            f"  session: {session.name} ({session.path})",
            f"  workspace: {session.workspace}",
            site_policy_line(),
        ]
    )
    return Report(f"```\n{text}\n```", text)


def _plan(magics: AgentMagics, args: argparse.Namespace) -> Report:
    return plan_report(session_named(magics, args.session))


def _memory(magics: AgentMagics, args: argparse.Namespace) -> Report:
    tokens = [args.action, *args.names] if args.action else []
    return memory_command(magics.sessions.folder, tokens, SUBCOMMANDS["memory"].parser().format_usage().strip())


def _session_file(magics: AgentMagics, args: argparse.Namespace) -> Report:
    """Where this kernel's sessions are kept; ``PATH`` moves them (headless runs the kernel cannot place)."""
    from pathlib import Path

    from jupyter_agent.session import SessionLockedError

    tokens = args.path
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


def _materialize(magics: AgentMagics, args: argparse.Namespace) -> Report:
    """The last turn's Python code as cells (through the lab extension, else the next input)."""
    from jupyter_agent.notebook.comm import materialize_last_turn

    try:
        return Report(materialize_last_turn(magics.shell, magics.sessions.folder, args.session))
    except LookupError as error:
        raise UsageError(str(error).strip("'\"")) from None


def _mcp(magics: AgentMagics, args: argparse.Namespace) -> Report:
    from jupyter_agent.notebook.mcp_commands import mcp_command

    return mcp_command(magics, args.words, SUBCOMMANDS["mcp"].parser().format_usage().strip())


def _serve(magics: AgentMagics, args: argparse.Namespace) -> Report | None:
    return serve_command(magics, args, SUBCOMMANDS["serve"].parser().format_usage().strip())


def _fix(magics: AgentMagics, args: argparse.Namespace) -> None:
    """A turn that fixes the last error (``TEXT``: what the user adds to the request)."""
    from jupyter_agent.notebook.fix import fix_prompt
    from jupyter_agent.tools.data_policy import DataPolicy

    config = AgentConfig.from_magics(magics)
    try:
        prompt = fix_prompt(magics.shell, DataPolicy(config.data_policy, config.sample_rows), args.text)
    except LookupError as error:
        raise UsageError(str(error).strip("'\"")) from None
    magics.start_turn("", prompt, mentions=False)


def _step_number(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"%agent undo takes a step number, got {text!r}")
    return int(text)


_SESSION = arg("-s", "--session", metavar="NAME", help="the session (default: the latest turn's, else the current one)")

SUBCOMMANDS = SubcommandTable(
    [
        Subcommand("sessions", "The notebook's sessions: messages, last activity, model and cost.", _sessions),
        Subcommand("usage", "Tokens, cost and steps of a session.", _usage, (_SESSION,)),
        Subcommand("history", "Every message of a session, summarized ones included.", _history, (_SESSION,)),
        Subcommand("plan", "The task plan of a session.", _plan, (_SESSION,)),
        Subcommand(
            "memory",
            "The notebook's memory notes: list them, show, delete or undo one.",
            _memory,
            (
                arg("action", nargs="?", metavar="list|show|delete|undo", help="what to do (default: list)"),
                arg("names", nargs="*", metavar="NAME", help="the note"),
            ),
        ),
        Subcommand("steer", "A message for the running turn, delivered at its next step.", _steer, text="text"),
        Subcommand("follow-up", "A message for when the running turn would otherwise finish.", _follow_up, text="text"),
        Subcommand("stop", "Stop the session's queued and running turns.", _stop, (_SESSION,)),
        Subcommand("wait", "Wait until the session's turns have ended (on a line of its own).", _wait, (_SESSION,)),
        Subcommand(
            "undo",
            "Restore the files and variables the agent changed in a step (default: its last).",
            _undo,
            (arg("step", nargs="?", type=_step_number, metavar="STEP", help="the step number"),),
        ),
        Subcommand("diff", "What the agent changed: variables per step, files as diffs.", _diff, (_SESSION,)),
        Subcommand(
            "model",
            "The model of the next turns; with NAME, set it for the session.",
            _model,
            (arg("name", nargs="?", metavar="NAME", help="a litellm model name, or 'demo'"),),
        ),
        Subcommand("config", "The effective settings (never the API key).", _config),
        Subcommand(
            "materialize",
            "The last turn's Python code as cells below its agent cell.",
            _materialize,
            (arg("session", nargs="?", metavar="SESSION", help="the session (default: the most recent one)"),),
        ),
        Subcommand(
            "mcp",
            "The MCP servers of this notebook: list them, a server's tools, or restart one.",
            _mcp,
            (arg("words", nargs="*", metavar="tools NAME | restart NAME", help="what to show or do (default: the servers)"),),
        ),
        Subcommand("serve", SERVE_SUMMARY, _serve, SERVE_ARGUMENTS),
        Subcommand(
            "session-file",
            "Where this kernel's sessions are kept; PATH moves them.",
            _session_file,
            (arg("path", nargs="*", metavar="PATH", help="a .jsonl file, e.g. analysis.agent/main.jsonl"),),
        ),
        Subcommand("fix", "A turn that fixes the last error; TEXT adds to the request.", _fix, text="text", text_required=False),
    ],
    USAGE,
)
