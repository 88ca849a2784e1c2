"""``%%agent`` (a turn: the cell body is the prompt) and ``%agent SUBCOMMAND``.

Defaults come from traitlets (``%config AgentMagics.model = "…"`` or ``ipython_config.py``) and
the environment. The magic itself only parses, picks the session, model and renderer, and hands
the turn to the runner; bad options end in a short ``UsageError`` with the usage, never a
traceback.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from traitlets import Bool, Dict, Enum, Float, Int, List, Unicode

from jupyter_agent.notebook import frontend, runner
from jupyter_agent.notebook.config import DATA_POLICIES, PERMISSION_MODES, AgentConfig, choose_permissions, default_workspace
from jupyter_agent.notebook.lab_bridge import LabBridge
from jupyter_agent.notebook.model_resolution import ResolvedModel, choose_model
from jupyter_agent.notebook.session_manager import SessionManager, SessionNameError
from jupyter_agent.notebook.site_limits import limit_config, limit_permissions, load_site_policy, site_model
from jupyter_agent.notebook.system_prompt import PromptContext, build_system_prompt, turn_context
from jupyter_agent.notebook.toolset import UnknownToolError, build_tools, parse_tool_list

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.loop import AgentTool
    from jupyter_agent.notebook.report import Report
    from jupyter_agent.notebook.session_manager import AgentSession

NO_PROMPT = "%%agent needs a prompt: write it in the cell body, below the %%agent line."


@magics_class
class AgentMagics(Magics):
    """An LLM agent in your kernel: ``%%agent`` runs a turn, ``%agent`` manages sessions."""

    model = Unicode(
        "",
        help="Model for new turns (litellm name, e.g. 'openai/gpt-4.1-mini', or 'demo'). "
        "Empty: JUPYTER_AGENT_MODEL, then a provider key, then local Ollama, then the offline demo.",
    ).tag(config=True)
    api_base = Unicode("", help="Base URL of an OpenAI-compatible server (else JUPYTER_AGENT_API_BASE).").tag(config=True)
    api_key = Unicode("", help="API key for the model (else JUPYTER_AGENT_API_KEY or the provider's variable).").tag(config=True)
    permissions = Enum(
        PERMISSION_MODES,
        default_value=None,
        allow_none=True,
        help="ask: approve each mutating tool call; readonly: deny them; yolo: allow all. "
        "None: JUPYTER_AGENT_PERMISSIONS, else ask (a headless run, which cannot ask, "
        "denies). A cell's -p wins over both.",
    ).tag(config=True)
    session = Unicode("main", help="Session name when a cell gives none.").tag(config=True)
    max_steps = Int(None, allow_none=True, help="Steps per turn (model round trips); None: no limit.").tag(config=True)
    max_spend = Float(None, allow_none=True, help="USD ceiling per turn; None: no limit.").tag(config=True)
    tools = List(Unicode(), help="Tools the agent may use; empty: all.").tag(config=True)
    workspace = Unicode("", help="Folder the file tools are confined to; empty: the notebook's git root, else its folder.").tag(
        config=True
    )
    session_dir = Unicode(
        "",
        help="Folder of this kernel's session files (<name>.jsonl); empty: <notebook>.agent/ beside "
        "the notebook, else ipython.agent/ in the working folder.",
    ).tag(config=True)
    data_policy = Enum(
        DATA_POLICIES,
        default_value="sample",
        help="sample: statistics and sample rows; schema: structure only, never values; full: as much as the output caps allow.",
    ).tag(config=True)
    sample_rows = Int(5, help="Sample rows inspect may show (data_policy 'sample').").tag(config=True)
    bash_timeout = Float(120.0, help="Seconds before a bash command is killed.").tag(config=True)
    stream_timeout = Float(
        None,
        allow_none=True,
        help="Seconds without data from the provider before a response fails; None: JUPYTER_AGENT_STREAM_TIMEOUT, else 120.",
    ).tag(config=True)
    recent_cells = Int(
        6, help="Cells before and after the agent cell in the notebook outline the agent gets; 0: no outline."
    ).tag(config=True)
    wait = Bool(False, help="Block each %%agent cell until its turn ends (headless runs always do).").tag(config=True)
    memory = Bool(
        False,
        help="Keep durable facts about this notebook across sessions (<notebook>.agent/memory/): "
        "the index goes into every request and each turn ends with an extraction request.",
    ).tag(config=True)
    delegate = Bool(
        False,
        help="Give the agent the delegate tool: sub-agents with fresh contexts and read-only tools "
        "run sub-tasks within the turn's budget.",
    ).tag(config=True)
    mcp_servers = Dict(
        help="MCP servers, as in .mcp.json: {'name': {'command': ..., 'args': [...], 'env': {...}}} "
        "or {'name': {'url': 'http://…/mcp', 'headers': {...}}}; these win over the files."
    ).tag(config=True)
    mcp_subagents = Bool(False, help="Give delegate's sub-agents the read-only MCP tools too.").tag(config=True)
    undo_snapshot_mb = Float(
        100.0, help="Values the agent's code names are copied before it runs, for %agent undo, when smaller than this (MB)."
    ).tag(config=True)
    replay = Enum(
        ("off", "auto", "strict"),
        default_value="off",
        help="auto: a cell whose prompt matches a recorded turn replays it without the model (else runs live); "
        "strict: replays or fails. A cell's --replay wins.",
    ).tag(config=True)
    preload = Bool(True, help="Import litellm in a background thread at %load_ext.").tag(config=True)

    def __init__(self, shell: InteractiveShell, **kwargs: object) -> None:
        super().__init__(shell=shell, **kwargs)
        self.sessions = SessionManager(
            shell.user_ns, workspace_for=self._workspace_for, configured_folder=lambda: self.session_dir
        )
        self.bridge = LabBridge(shell, self.sessions)
        self._location_noted: set[Path] = set()

    # -- %%agent ----------------------------------------------------------------------------

    @cell_magic("agent")
    @magic_arguments("%agent")
    @argument("-m", "--model", help="model for this turn (litellm name, or 'demo')")
    @argument("-s", "--session", metavar="NAME", help="session to continue (default: the current one, 'main')")
    @argument("--new", action="store_true", help="start a fresh session")
    @argument("--branch", metavar="NAME", help="fork the session into NAME and continue there")
    @argument("-p", "--permissions", choices=PERMISSION_MODES, help="ask | readonly | yolo")
    @argument("--max-steps", type=int, metavar="N", help="at most N steps (model round trips)")
    @argument("--max-spend", type=float, metavar="USD", help="stop before spending more than USD")
    @argument("--tools", metavar="LIST", help="comma-separated tools, e.g. python,variables (or 'none')")
    @argument("--wait", action="store_const", const=True, dest="wait", default=None, help="block the cell until the turn ends")
    @argument("--no-wait", action="store_const", const=False, dest="wait", help="return at once")
    @argument(
        "--memory",
        action="store_const",
        const=True,
        dest="memory",
        default=None,
        help="use and update the notebook's memory in this turn",
    )
    @argument("--no-memory", action="store_const", const=False, dest="memory", help="no memory in this turn")
    @argument(
        "--delegate",
        action="store_const",
        const=True,
        dest="delegate",
        default=None,
        help="let the agent hand sub-tasks to sub-agents",
    )
    @argument("--no-delegate", action="store_const", const=False, dest="delegate", help="no sub-agents in this turn")
    @argument("--mcp", metavar="NAMES", help="only these MCP servers (comma-separated) in this turn")
    @argument("--no-mcp", action="store_true", help="no MCP servers in this turn")
    @argument(
        "--replay",
        nargs="?",
        const="on",
        choices=("on", "strict"),
        help="play the recorded turn of this prompt again without the model (=strict: fail if there is none)",
    )
    @argument("-h", "--help", action="store_true", help="show this help")
    def agent_cell(self, line: str, cell: str) -> None:
        """Run an agent turn; the cell body is the prompt."""
        self.start_turn(line, cell)

    def start_turn(self, line: str, cell: str, *, mentions: bool = True) -> None:
        """A turn as ``%%agent line`` with body ``cell`` would start it (``%agent fix`` too)."""
        args = self._parse(line)
        if args is None:
            return
        mode = frontend.frontend_mode(self.shell)
        turn = self._turn(args, cell, mode, mentions=mentions)
        if not frontend.blocks(mode, args.wait, self.wait):
            runner.start(turn)
            return
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # terminal IPython without autoawait: nothing is running yet
            from IPython.core.async_helpers import get_asyncio_loop

            get_asyncio_loop().run_until_complete(runner.run_in_foreground(turn))
            return
        # The cell cannot block the loop it runs on; the transformer normally makes it await.
        turn.renderer.note("Running in the background (this cell could not wait for it).")
        runner.start(turn)

    async def run_blocking(self, line: str, cell: str) -> None:
        """What a blocking ``%%agent`` cell awaits (see ``extension.CellTransformer``)."""
        args = self._parse(line)
        if args is None:
            return
        turn = self._turn(args, cell, frontend.frontend_mode(self.shell))
        await runner.run_in_foreground(turn)

    def _parse(self, line: str) -> argparse.Namespace | None:
        try:
            args = parse_argstring(self.agent_cell, line)
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

    def _turn(self, args: Any, cell: str, mode: frontend.Mode, *, mentions: bool = True) -> runner.Turn:
        prompt = cell.strip()
        if not prompt:
            raise UsageError(NO_PROMPT)
        config = AgentConfig.from_magics(self)
        # Imported here, in the cell's time, rather than in the turn's first step on the
        # background loop, where it would stall the notebook for tens of milliseconds.
        import jupyter_agent.features.turn_features  # noqa: F401
        import jupyter_agent.runtime  # noqa: F401
        from jupyter_agent.session import SessionLockedError

        try:
            policy = load_site_policy()  # the administrator's limits: user settings apply within them
            config = limit_config(config, policy)
            # Nothing chosen: ask; a headless renderer, which cannot ask, denies with a note.
            permissions = limit_permissions(choose_permissions(args.permissions, config) or "ask", policy)
            tools = parse_tool_list(args.tools) if args.tools is not None else tuple(config.tools)
            session = self._session(args, config)
        except (UnknownToolError, SessionNameError, SessionLockedError, FileExistsError, ValueError) as error:
            # SessionLockedError: another kernel (or store) writes this session; it names the holder.
            raise UsageError(str(error)) from None
        try:
            choice = site_model(choose_model(args.model, session.model_name, config.model), policy)
        except ValueError as error:
            raise UsageError(str(error)) from None
        settings = runner.TurnSettings(
            permissions=permissions,
            max_steps=args.max_steps if args.max_steps is not None else config.max_steps,
            max_spend=policy.spend(args.max_spend) if args.max_spend is not None else config.max_spend,
            tools=tools,
            api_key=config.api_key or None,
            api_base=config.api_base or None,
            data_policy=config.data_policy,
            sample_rows=config.sample_rows,
            bash_timeout=config.bash_timeout,
            stream_timeout=config.stream_timeout,
            memory=config.memory if args.memory is None else args.memory,
            delegate=config.delegate if args.delegate is None else args.delegate,
            mcp=_mcp_selection(args),
            mcp_servers=config.mcp_servers,
            mcp_subagents=config.mcp_subagents,
            undo_snapshot_mb=config.undo_snapshot_mb,
            replay=args.replay or config.replay,
        )
        if mentions:
            prompt = _with_mentions(prompt, self.shell, session, settings)
        renderer = frontend.make_renderer(
            mode, model_label=_label(choice), session=session.name, context_window=None, demo=choice.is_demo
        )
        frontend.show(renderer)
        if mode == "static" and not self.sessions.location_known and session.path not in self._location_noted:
            self._location_noted.add(session.path)  # once per session: the next cells only repeat it
            renderer.note(unknown_notebook_note(session.path))
        shell = self.shell
        assert shell is not None  # a magic only runs inside a shell
        cell_id = _cell_id(shell)

        cell_waits = frontend.blocks(mode, args.wait, self.wait)  # the kernel runs no other cell meanwhile

        def make_tools(current_step: Callable[[], int]) -> list[AgentTool]:
            return build_tools(
                shell,
                session,
                selected=settings.tools,
                data_policy=settings.data_policy,
                sample_rows=settings.sample_rows,
                bash_timeout=settings.bash_timeout,
                current_step=current_step,
                cell_waits=cell_waits,
                snapshot_limit_mb=settings.undo_snapshot_mb,
            )

        def make_system(resolved: ResolvedModel, tool_list: list[AgentTool]) -> str:
            return build_system_prompt(
                PromptContext(
                    notebook_path=session.notebook,
                    workspace=session.workspace,
                    tool_names=[tool.name for tool in tool_list],
                    model_name=resolved.label,
                    context_section=_context_section(session),
                )
            )

        def make_context() -> str:
            return turn_context(_outline(shell, session, cell_id, config.recent_cells))

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
            on_started=self.bridge.turn_started,
            on_finished=self.bridge.turn_finished,
        )
        return runner.Turn(request, foreground=mode == "terminal")

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
        """What ``%agent wait`` awaits in a kernel (see ``extension.CellTransformer``)."""
        from jupyter_agent.notebook.subcommands import wait_session

        await runner.wait_idle(wait_session(self, line))


def _mcp_selection(args: Any) -> tuple[str, ...] | None:
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


def _cell_id(shell: Any) -> str | None:
    from jupyter_agent.notebook.comm import current_cell_id

    return current_cell_id(shell)


def _with_mentions(prompt: str, shell: Any, session: Any, settings: runner.TurnSettings) -> str:
    from jupyter_agent.notebook.mentions import expand_mentions
    from jupyter_agent.tools.data_policy import DataPolicy

    policy = DataPolicy(settings.data_policy, settings.sample_rows)
    return expand_mentions(prompt, shell.user_ns, session.notebook, policy)


def _outline(shell: Any, session: Any, cell_id: str | None, around: int) -> str:
    """The cells around the agent cell, from the saved file and the kernel's history."""
    if around <= 0:
        return ""
    from jupyter_agent.features.notebook_tools import outline_section, read_disk_cells

    cells, source = read_disk_cells(session.notebook, shell.user_ns)
    return outline_section(cells, source, agent_cell_id=cell_id, around=around)


def _label(choice) -> str:
    return choice.name  # the renderers add "offline demo model" themselves


def _context_section(session: AgentSession) -> str:
    from jupyter_agent.session import context_prompt, find_context_files

    start = session.notebook or session.workspace
    try:
        return context_prompt(find_context_files(start, session.workspace))
    except OSError:
        return ""
