"""``%agent SUBCOMMAND``: inspect and steer sessions from any cell.

Results are shown as ``Report`` objects: Markdown in notebooks, plain text in the terminal.
``SUBCOMMANDS`` declares each subcommand's arguments beside its handler (``subcommand_parser``):
every one has ``--help``; unknown subcommands and bad arguments raise a short ``UsageError``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from jupyter_agent.notebook import runner
from jupyter_agent.notebook.config import AgentConfig
from jupyter_agent.notebook.model_resolution import choose_model
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.session_commands import (
    HISTORY_ARGUMENTS,
    HISTORY_SUMMARY,
    SESSIONS_ARGUMENTS,
    SESSIONS_SUMMARY,
    history_command,
    sessions_command,
)
from jupyter_agent.notebook.site_limits import site_policy_line
from jupyter_agent.notebook.subcommand_parser import Subcommand, SubcommandTable, arg, session_argument, session_named
from jupyter_agent.notebook.turn_preview import PREVIEW_ARGUMENTS, PREVIEW_SUMMARY, preview_command
from jupyter_agent.notebook.views import commands, undo_handlers

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.session_manager import AgentSession

USAGE = """\
usage: %agent sessions | usage | history | preview | plan | memory [show|delete|undo NAME] |
              steer TEXT | follow-up TEXT | stop | wait | undo [STEP] | diff | model [NAME] |
              config | materialize [SESSION] | mcp [tools NAME | restart NAME] |
              serve [stop] | session-file [PATH] | fix [TEXT] | help
usage, history, plan, stop, wait and diff take -s/--session NAME (default: the session of the
latest %%agent cell, else the current one). %agent SUBCOMMAND --help describes one."""


def run_subcommand(magics: AgentMagics, line: str) -> Report | None:
    return SUBCOMMANDS.run(magics, line)


def wait_session(magics: AgentMagics, rest: str) -> AgentSession:
    """The session ``%agent wait [-s NAME]`` waits for (parsed like every subcommand)."""
    return session_named(magics, SUBCOMMANDS["wait"].parse(rest).session)


def _usage(magics: AgentMagics, args: argparse.Namespace) -> Report:
    session = session_named(magics, args.session)
    usage = session.store.usage()
    fields = vars(usage)
    text = ", ".join(f"{key} {value:.4f}" if isinstance(value, float) else f"{key} {value}" for key, value in fields.items())
    table = ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in fields.items()]
    return Report(f"**Usage of session `{session.name}`**\n\n" + "\n".join(table), f"session {session.name}: {text}")


def _steer(magics: AgentMagics, args: argparse.Namespace, kind: str = "steer") -> Report:
    session = magics.sessions.recent()
    turn = runner.running_turn(session)
    if turn is None:
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
    """The step's changes, undone by the first feature whose changes it holds (registry order)."""
    session = magics.sessions.recent()
    for undo in undo_handlers():
        report = undo(magics, session, args.step)
        if report is not None:
            return report
    return Report("The agent has not changed anything that can be undone in this session.")


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
    choice = choose_model(None, session.model_name, config.model, configured_by=config.set_by("model"))
    return Report(f"Model: `{choice.name}` (from {choice.source}).")


def _config(magics: AgentMagics, args: argparse.Namespace) -> Report:
    config = AgentConfig.from_magics(magics)
    session = magics.sessions.recent()
    choice = choose_model(None, session.model_name, config.model, configured_by=config.set_by("model"))
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


def _fix(magics: AgentMagics, args: argparse.Namespace) -> None:
    """A turn that fixes the last error (``TEXT``: what the user adds to the request)."""
    from jupyter_agent.notebook.fix import fix_prompt
    from jupyter_agent.notebook.site_limits import load_site_policy
    from jupyter_agent.notebook.toolset import data_policy

    try:
        # The prompt holds the failing frame's locals: the site's data ceiling binds them as it binds the turn.
        config = load_site_policy().apply(AgentConfig.from_magics(magics))
        policy = data_policy(config.data_policy, config.sample_rows, config.data_ceiling)
        prompt = fix_prompt(magics.shell, policy, args.text)
    except LookupError as error:
        raise UsageError(str(error).strip("'\"")) from None
    except ValueError as error:  # a broken site policy (SitePolicyError): the turn would be refused too
        raise UsageError(str(error)) from None
    magics.start_turn("", prompt, mentions=False)


def _step_number(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"%agent undo takes a step number, got {text!r}")
    return int(text)


_SESSION = session_argument()

SUBCOMMANDS = SubcommandTable(
    [
        Subcommand("sessions", SESSIONS_SUMMARY, sessions_command, SESSIONS_ARGUMENTS),
        Subcommand("usage", "Tokens, cost and steps of a session.", _usage, (_SESSION,)),
        Subcommand("history", HISTORY_SUMMARY, history_command, (_SESSION, *HISTORY_ARGUMENTS)),
        Subcommand("preview", PREVIEW_SUMMARY, preview_command, PREVIEW_ARGUMENTS),
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
            "session-file",
            "Where this kernel's sessions are kept; PATH moves them.",
            _session_file,
            (arg("path", nargs="*", metavar="PATH", help="a .jsonl file, e.g. analysis.agent/main.jsonl"),),
        ),
        Subcommand("fix", "A turn that fixes the last error; TEXT adds to the request.", _fix, text="text", text_required=False),
        *commands(),  # the features' own: plan, memory, diff, mcp, serve…
    ],
    USAGE,
)
