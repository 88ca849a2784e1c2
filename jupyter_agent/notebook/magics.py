"""``%%agent`` (a turn: the cell body is the prompt) and ``%agent SUBCOMMAND``, and the cell transformer that lets them wait.

Defaults come from traitlets (``%config AgentMagics.model = "…"`` or ``ipython_config.py``) and
the environment. The magic itself only parses, picks the session, model and renderer, and hands
the turn to the runner; bad options end in a short ``UsageError`` with the usage, never a
traceback.

``CellTransformer`` makes waiting cells *await* instead of blocking: a sync magic cannot wait
for a task on the loop it runs on, but a cell with a top-level ``await`` runs as a coroutine on
the kernel's loop, which keeps serving widgets, the agent and the Interrupt meanwhile. It turns
a blocking ``%%agent`` cell (``--wait``, headless, terminal) into an ``await`` of the magic's
``run_blocking``, and a ``%agent wait`` line into an ``await`` of ``wait_async``.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from jupyter_agent.notebook import frontend
from jupyter_agent.notebook.failed_turn import fail_cell, waits
from jupyter_agent.notebook.lab_bridge import LabBridge
from jupyter_agent.notebook.session_manager import SessionManager, SessionNameError

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets import TraitType

    from jupyter_agent.features.feature import ResolvedModel
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook import runner
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend
    from jupyter_agent.notebook.config import AgentConfig
    from jupyter_agent.notebook.report import Report
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.tools.data_policy import DataPolicy

NO_PROMPT = "%%agent needs a prompt: write it in the cell body, below the %%agent line."


# The settings' traitlets and %%agent options, built from their declarations (notebook/config.py:
# table): read from JSON, so %load_ext needs none of the pydantic models they are declared in.
SETTINGS = json.loads(Path(__file__).with_name("settings.json").read_text(encoding="utf-8"))
_OPTION_TYPES = {"int": int, "float": float}


Magic = TypeVar("Magic", bound=Callable[..., object])  # a magic method, given its options


def setting_traits() -> dict[str, TraitType[Any, Any]]:
    """One configurable traitlet per declared setting, with its default and help."""
    import traitlets

    traits: dict[str, TraitType[Any, Any]] = {}
    for entry in SETTINGS["traits"]:
        keywords = {"allow_none": entry["allow_none"], "help": entry["help"]}
        kind, default = entry["kind"], entry["default"]
        trait: TraitType[Any, Any]
        if kind == "Enum":
            trait = traitlets.Enum(tuple(entry["values"]), default, **keywords)
        elif kind == "List":
            trait = traitlets.List(traitlets.Unicode(), default_value=default, help=entry["help"])
        elif kind == "Dict":
            trait = traitlets.Dict(default_value=default, help=entry["help"])
        else:
            trait = getattr(traitlets, kind)(default, **keywords)
        traits[entry["name"]] = trait.tag(config=True)
    return traits


def setting_variable(name: str) -> str | None:
    """The environment variable setting ``name`` falls back on when ``%config`` leaves it unset."""
    return next((entry["env"] for entry in SETTINGS["traits"] if entry["name"] == name), None)


def cell_arguments(magic: Magic) -> Magic:
    """The settings' ``%%agent`` options, in their declarations' order (as if written one per line)."""
    for item in reversed(SETTINGS["cell_options"]):
        keywords = dict(item["keywords"])
        if "type" in keywords:
            keywords["type"] = _OPTION_TYPES[keywords["type"]]
        if "choices" in keywords:
            keywords["choices"] = tuple(keywords["choices"])
        magic = argument(*item["flags"], **keywords)(magic)
    return magic


@magics_class
class AgentMagics(Magics):
    """An LLM agent in your kernel: ``%%agent`` runs a turn, ``%agent`` manages sessions."""

    # One traitlet per declared setting (features/settings.py, notebook/config.py), with its
    # default and help: %config AgentMagics.<name>. A class body's namespace takes them as names.
    locals().update(setting_traits())
    if TYPE_CHECKING:  # what mypy cannot see of them: the kernel's settings read as attributes
        model: str
        workspace: str
        session_dir: str
        wait: bool
        preload: bool
        raise_on_error: str
        mcp_servers: dict[str, object]

    def __init__(self, shell: InteractiveShell, **kwargs: object) -> None:
        super().__init__(shell=shell, **kwargs)
        self.sessions = SessionManager(
            shell.user_ns, workspace_for=self._workspace_for, configured_folder=lambda: self.session_dir
        )
        self.bridge = LabBridge(shell, self.sessions, config=self.current_config)
        self._location_noted: set[Path] = set()

    # -- %%agent ----------------------------------------------------------------------------

    @cell_magic("agent")
    @magic_arguments("%agent")
    @cell_arguments
    @argument("-h", "--help", action="store_true", help="show this help")
    def agent_cell(self, line: str, cell: str) -> None:
        """Run an agent turn; the cell body is the prompt."""
        self.start_turn(line, cell)

    def start_turn(self, line: str, cell: str, *, mentions: bool = True) -> None:
        """A turn as ``%%agent line`` with body ``cell`` would start it (``%agent fix`` too)."""
        args = self._parse(line)
        if args is None:
            return
        from jupyter_agent.notebook import runner

        mode = frontend.frontend_mode(self.shell)
        turn = self._turn(args, cell, mode, mentions=mentions)
        if not frontend.blocks(mode, args.wait, waits(self.wait, self.raise_on_error)):
            runner.start(turn)
            return
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # terminal IPython without autoawait: nothing is running yet
            from IPython.core.async_helpers import get_asyncio_loop

            get_asyncio_loop().run_until_complete(runner.run_in_foreground(turn))
            fail_cell(turn, self.raise_on_error, mode)
            return
        # The cell cannot block the loop it runs on; the transformer normally makes it await.
        turn.renderer.note("Running in the background (this cell could not wait for it).")
        runner.start(turn)

    async def run_blocking(self, line: str, cell: str) -> None:
        """What a blocking ``%%agent`` cell awaits (see ``CellTransformer``)."""
        args = self._parse(line)
        if args is None:
            return
        from jupyter_agent.notebook import runner

        mode = frontend.frontend_mode(self.shell)
        turn = self._turn(args, cell, mode)
        await runner.run_in_foreground(turn)
        fail_cell(turn, self.raise_on_error, mode)

    def _parse(self, line: str) -> argparse.Namespace | None:
        try:
            args: argparse.Namespace = parse_argstring(self.agent_cell, line)
        except UsageError as error:
            raise UsageError(f"{error}\n{self.cell_usage()}") from None
        if args.help:
            print(self.agent_cell.parser.format_help().replace("::\n\n  ", "usage: ", 1))
            return None
        if args.max_steps is not None and args.max_steps < 1:
            raise UsageError(f"--max-steps must be at least 1, got {args.max_steps}\n{self.cell_usage()}")
        if args.max_spend is not None and not args.max_spend > 0:
            raise UsageError(f"--max-spend must be a positive amount of USD, got {args.max_spend}\n{self.cell_usage()}")
        return args

    def cell_usage(self) -> str:
        return self.agent_cell.parser.format_usage().strip().replace("::\n\n  ", "usage: ") + "\nSee %%agent --help."

    def _turn(self, args: argparse.Namespace, cell: str, mode: frontend.Mode, *, mentions: bool = True) -> runner.Turn:
        prompt = cell.strip()
        if not prompt:
            raise UsageError(NO_PROMPT)
        # Imported here, at the first turn, not by %load_ext (which must stay fast): warm_up
        # imports them in the background meanwhile. In the cell's time rather than in the turn's
        # first step on the background loop, where they would stall the notebook.
        import jupyter_agent.features.turn_features  # noqa: F401
        import jupyter_agent.notebook.views  # noqa: F401
        import jupyter_agent.runtime.run  # noqa: F401
        from jupyter_agent.notebook import agent_cells, runner
        from jupyter_agent.notebook.config import given_by
        from jupyter_agent.notebook.model_resolution import choose_model
        from jupyter_agent.notebook.site_limits import load_site_policy, site_model
        from jupyter_agent.notebook.system_prompt import notebook_system_prompt, turn_context
        from jupyter_agent.notebook.toolset import UnknownToolError, build_tools, data_policy, run_control
        from jupyter_agent.session.lock import SessionLockedError

        config = self.current_config()

        try:
            policy = load_site_policy()  # the administrator's limits: user settings apply within them
            given = given_by(args, tools=_tool_selection, mcp=_mcp_selection)
            # Nothing chosen: ask; a headless renderer, which cannot ask, denies with a note.
            settings = policy.apply(config.turn(given))
            session = self._session(args, config)
        except (UnknownToolError, SessionNameError, SessionLockedError, FileExistsError, ValueError) as error:
            # SessionLockedError: another kernel (or store) writes this session; it names the holder.
            raise UsageError(str(error)) from None
        try:
            choice = site_model(
                choose_model(args.model, session.model_name, config.model, configured_by=config.set_by("model")), policy
            )
        except ValueError as error:
            raise UsageError(str(error)) from None
        data = data_policy(settings.data_policy, settings.sample_rows, settings.data_ceiling)
        shell = self.shell
        assert shell is not None  # a magic only runs inside a shell
        if mentions and "@" in prompt:  # every mention starts with "@": a prompt without one has none
            from jupyter_agent.notebook.mentions import expand_mentions

            prompt = expand_mentions(prompt, shell.user_ns, session.notebook, data, session.workspace)
        renderer = frontend.make_renderer(
            mode, model_label=choice.name, session=session.name, context_window=None, demo=choice.is_demo
        )
        frontend.show(renderer)
        for note in policy.notes:  # a change of the policy's location in this kernel, ignored
            renderer.note(note)
        if mode == "static" and not self.sessions.location_known and session.path not in self._location_noted:
            self._location_noted.add(session.path)  # once per session: the next cells only repeat it
            renderer.note(unknown_notebook_note(session.path))
        cell_id = _cell_id(shell)
        cell_waits = frontend.blocks(mode, args.wait, self.wait)  # the kernel runs no other cell meanwhile

        def make_tools(current_step: Callable[[], int]) -> list[AgentTool]:
            return build_tools(
                shell,
                session,
                selected=settings.tools,
                policy=data,
                bash_timeout=settings.bash_timeout,
                python_timeout=settings.python_timeout,
                current_step=current_step,
                live_renderer=lambda: renderer,  # the turn's panel shows the code's output live
            )

        def make_system(resolved: ResolvedModel, tool_list: list[AgentTool]) -> str:
            return notebook_system_prompt(session.notebook, session.workspace, [tool.name for tool in tool_list], resolved.label)

        def make_context() -> str:
            return turn_context(_outline(shell, session, cell_id, settings.recent_cells, data))

        request = runner.TurnRequest(
            prompt=prompt,
            session=session,
            renderer=renderer,
            choice=choice,
            settings=settings,
            build_tools=make_tools,
            build_system=make_system,
            build_context=make_context,
            cell_id=cell_id,
            cell=agent_cells.cell_turn(shell, cell.strip(), cell_id, mode == "static", session.notebook),
            on_started=self.bridge.turn_started,
            on_finished=self.bridge.turn_finished,
            shell=shell,
            frontend=_notebook_frontend(shell),
            cell_waits=cell_waits,
            run_control=run_control(shell, session, settings.python_timeout, settings.ask_slow_cells),
        )
        return runner.Turn(request, foreground=mode == "terminal")

    def current_config(self) -> AgentConfig:
        """The settings as ``%config`` and the environment give them now (a snapshot per cell)."""
        from jupyter_agent.notebook.config import AgentConfig

        return AgentConfig.from_magics(self)

    def _session(self, args: argparse.Namespace, config: AgentConfig) -> AgentSession:
        name = args.session or (None if config.session == "main" else config.session)
        if args.new:
            session = self.sessions.start_new(name)
        elif args.branch:
            session = self.sessions.branch(self.sessions.get(name), args.branch)
        else:
            session = self.sessions.get(name)
        self.sessions.last_used = session.name
        return session

    def _workspace_for(self, notebook_dir: Path) -> Path:
        from jupyter_agent.notebook.config import default_workspace

        configured = self.workspace
        return Path(configured).expanduser().resolve() if configured else default_workspace(notebook_dir)

    # -- %agent -----------------------------------------------------------------------------

    @line_magic("agent")  # type: ignore[arg-type]  # IPython types the decorator for plain functions
    def agent_line(self, line: str) -> Report | None:
        """%agent sessions | usage | history | plan | memory [show|delete|undo NAME] | steer TEXT |
        follow-up TEXT | stop | wait | undo [STEP] | diff | model [NAME] | config | materialize [SESSION] |
        mcp [tools NAME | restart NAME] | serve [stop] | session-file [PATH] | fix [TEXT] | help;
        %agent SUBCOMMAND --help describes one."""
        from jupyter_agent.notebook.subcommands import run_subcommand

        return run_subcommand(self, line)

    async def wait_async(self, line: str = "") -> None:
        """What ``%agent wait`` awaits in a kernel (see ``CellTransformer``)."""
        from jupyter_agent.notebook import runner
        from jupyter_agent.notebook.subcommands import wait_session

        await runner.wait_idle(wait_session(self, line))


def _tool_selection(args: argparse.Namespace) -> tuple[str, ...] | None:
    from jupyter_agent.notebook.toolset import parse_tool_list

    return parse_tool_list(args.tools) if args.tools is not None else None


def _mcp_selection(args: argparse.Namespace) -> tuple[str, ...] | None:
    if args.no_mcp:
        return ()
    if args.mcp is None:
        return None
    return tuple(name.strip() for name in args.mcp.split(",") if name.strip())


def unknown_notebook_note(path: Path) -> str:
    return (
        f"Session saved to {path}: this kernel was not told its notebook's path, so every notebook run in "
        "this folder shares that file. Keep them apart with %agent session-file NAME.agent/main.jsonl in the "
        "notebook, %config AgentMagics.session_dir = '...', or papermill's --inject-input-path."
    )


def _notebook_frontend(shell: object) -> CommNotebookFrontend:
    from jupyter_agent.notebook.comm.notebook_bridge import CommNotebookFrontend

    return CommNotebookFrontend(shell)


def _cell_id(shell: object) -> str | None:
    from jupyter_agent.notebook.comm import current_cell_id

    return current_cell_id(shell)


def _outline(shell: InteractiveShell, session: AgentSession, cell_id: str | None, around: int, policy: DataPolicy) -> str:
    """The cells around the agent cell, from the saved file and the kernel's history."""
    if around <= 0:
        return ""
    from jupyter_agent.features.notebook_tools import outline_section, read_disk_cells

    cells, source = read_disk_cells(session.notebook, shell.user_ns)
    return outline_section(cells, source, agent_cell_id=cell_id, around=around, policy=policy)


_WAIT_LINE = re.compile(r"^%agent\s+wait\b(?P<rest>[^\n]*)$")


class CellTransformer:
    """An IPython cleanup transformer (a function of the cell's lines)."""

    # Keeps IPython's "is this input complete?" check from seeing the rewritten cell: a terminal
    # would otherwise run "%%agent" before its body is typed.
    has_side_effects = True

    def __init__(self, shell: InteractiveShell, magics: AgentMagics) -> None:
        self.shell = shell
        self.magics = magics

    def can_await(self) -> bool:
        # Top-level await needs autoawait with the asyncio runner; otherwise the magics fall back.
        from IPython.core.async_helpers import _asyncio_runner

        return bool(getattr(self.shell, "autoawait", False)) and self.shell.loop_runner is _asyncio_runner

    def __call__(self, lines: list[str]) -> list[str]:
        if not lines or "%agent" not in lines[0] and not any(line.startswith("%agent") for line in lines):
            return lines
        first = lines[0]
        is_agent_cell = first.startswith("%%agent") and first[7:8] in ("", " ", "\t", "\n")
        if is_agent_cell and not "".join(lines[1:]).strip():
            return [self._bodiless_cell(first)]
        if not self.can_await():
            return lines
        if is_agent_cell:
            return self._agent_cell(lines)
        if first.startswith("%%"):
            return lines  # another cell magic owns the body
        return [self._wait_line(line) for line in lines]

    def _agent_cell(self, lines: list[str]) -> list[str]:
        option_line = lines[0][7:].strip()
        try:
            tokens = shlex.split(option_line)
        except ValueError:
            return lines  # the magic reports the parse error
        mode = frontend.frontend_mode(self.shell)
        if not frontend.blocks(mode, frontend.wait_option(tokens), waits(self.magics.wait, self.magics.raise_on_error)):
            return lines
        body = "".join(lines[1:])
        return [f"await get_ipython().find_cell_magic('agent').__self__.run_blocking({option_line!r}, {body!r})\n"]

    def _bodiless_cell(self, first: str) -> str:
        # IPython refuses a cell magic without a body before the magic runs; ours answers
        # itself: the help for ``--help``, else what the cell is missing.
        option_line = first[7:].strip()
        return f"get_ipython().find_cell_magic('agent')({option_line!r}, '')\n"

    def _wait_line(self, line: str) -> str:
        match = _WAIT_LINE.match(line.rstrip("\n"))
        if match is None:
            return line
        rest = match.group("rest").strip()
        ending = "\n" if line.endswith("\n") else ""
        return f"await get_ipython().find_line_magic('agent').__self__.wait_async({rest!r}){ending}"
