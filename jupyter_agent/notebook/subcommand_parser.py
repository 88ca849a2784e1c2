"""``%agent SUBCOMMAND`` parsed from one declarative table, like ``%%agent``'s options.

Each subcommand declares its arguments (argparse keywords) next to its handler. Every one has
``--help``; a bad argument ends in a short ``UsageError`` with that subcommand's usage line (IPython
shows it without a traceback), never in argparse's ``SystemExit``.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, NoReturn

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.report import Report
    from jupyter_agent.notebook.session_manager import AgentSession

HELP_FLAGS = ("-h", "--help")


@dataclass(frozen=True)
class Argument:
    flags: tuple[str, ...]
    options: dict[str, object] = field(default_factory=dict)  # add_argument's keywords


def arg(*flags: str, **options: object) -> Argument:
    return Argument(flags, options)


@dataclass(frozen=True)
class Subcommand:
    name: str
    summary: str
    run: Callable[[AgentMagics, argparse.Namespace], Report | None]
    arguments: tuple[Argument, ...] = ()
    # The verbatim rest of the line goes to this attribute, not through argparse: steer text keeps
    # its quotes and spacing.
    text: str | None = None
    text_required: bool = True

    def parser(self) -> SubcommandParser:
        parser = SubcommandParser(prog=f"%agent {self.name}", description=self.summary, add_help=False)
        for argument in self.arguments:
            parser.add_argument(*argument.flags, **argument.options)  # type: ignore[arg-type]
        if self.text is not None:
            parser.add_argument(self.text.upper(), nargs="+" if self.text_required else "*", help="the message, as typed")
        parser.add_argument(*HELP_FLAGS, action="store_true", help="show this help")
        return parser

    def parse(self, rest: str) -> argparse.Namespace:
        parser = self.parser()
        if self.text is not None:
            if rest.strip() in HELP_FLAGS:
                return argparse.Namespace(help=True)
            if not rest.strip() and self.text_required:
                parser.error(f"%agent {self.name} needs a message")
            return argparse.Namespace(**{self.text: rest.strip(), "help": False})
        try:
            tokens = shlex.split(rest)
        except ValueError as error:
            parser.error(str(error))
        namespace, extra = parser.parse_known_args(tokens)
        if extra:
            parser.error(f"unexpected argument {extra[0]!r}")
        return namespace


def session_argument() -> Argument:
    """``-s/--session NAME``, as every subcommand about one session takes it."""
    return arg("-s", "--session", metavar="NAME", help="the session (default: the latest turn's, else the current one)")


def session_named(magics: AgentMagics, name: str | None) -> AgentSession:
    """The session ``-s NAME`` names; without one, the latest turn's session, else the current one."""
    try:
        return magics.sessions.get(name) if name else magics.sessions.recent()
    except ValueError as error:
        raise UsageError(str(error)) from None


class SubcommandParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}\n{self.format_usage().strip()}\nSee {self.prog} --help.")


class SubcommandTable:
    def __init__(self, subcommands: list[Subcommand], usage: str) -> None:
        self.subcommands: dict[str, Subcommand] = {}
        for subcommand in subcommands:
            if subcommand.name in self.subcommands:
                raise ValueError(f"two subcommands are called {subcommand.name!r}")
            self.subcommands[subcommand.name] = subcommand
        self.usage = usage

    def __getitem__(self, name: str) -> Subcommand:
        return self.subcommands[name]

    def run(self, magics: AgentMagics, line: str) -> Report | None:
        from jupyter_agent.notebook.report import Report

        name, _, rest = line.strip().partition(" ")
        if not name or name in ("help", *HELP_FLAGS):
            topic = rest.strip()
            if topic in self.subcommands:
                return self._help(self.subcommands[topic])
            return Report(f"```\n{self.usage}\n```", self.usage)
        subcommand = self.subcommands.get(name)
        if subcommand is None:
            raise UsageError(f"unknown subcommand {name!r}\n{self.usage}")
        arguments = subcommand.parse(rest)
        if arguments.help:
            return self._help(subcommand)
        return subcommand.run(magics, arguments)

    def _help(self, subcommand: Subcommand) -> Report:
        from jupyter_agent.notebook.report import Report

        text = subcommand.parser().format_help().strip()
        return Report(f"```\n{text}\n```", text)


__all__ = ["Argument", "Subcommand", "SubcommandParser", "SubcommandTable", "arg", "session_argument", "session_named"]
