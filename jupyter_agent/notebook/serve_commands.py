"""``%agent serve [--port N] [-p MODE] [--tools LIST] [-s NAME]`` and ``%agent serve stop``.

Wires the kernel's MCP server (``features.mcp_server``) to the notebook: the tools a turn would
get (same data policy, caps and images), the session that records the calls (``serve``), and the
serve cell's panel, where each call is a card and approvals are asked.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from jupyter_agent.notebook import frontend
from jupyter_agent.notebook.config import AgentConfig, choose_permissions
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import arg
from jupyter_agent.notebook.toolset import UnknownToolError, build_tools, parse_tool_list

if TYPE_CHECKING:
    from jupyter_agent.runtime.permissions import PermissionMode

SERVE_SESSION = "serve"
SERVE_TOOLS = ("variables", "inspect", "python", "notebook_read", "notebook_edit", "notebook_run")
SERVE_SUMMARY = "Serve this kernel's tools over MCP to an external agent (Claude Code, Codex…); 'stop' ends it."
SERVE_ARGUMENTS = (
    arg("action", nargs="?", metavar="stop", help="stop the running server"),
    arg("--port", type=int, default=0, metavar="N", help="port on 127.0.0.1 (default: a free one)"),
    arg("-p", "--permissions", choices=("ask", "readonly", "yolo"), help="ask | readonly | yolo"),
    arg("--tools", metavar="LIST", help="comma-separated tools (default: the kernel and notebook tools)"),
    arg("-s", "--session", metavar="NAME", help="the session that records the calls (default: serve)"),
)
NO_LOOP = (
    "%agent serve needs the kernel's event loop: run it in a Jupyter notebook (terminal IPython has no loop between prompts)"
)


def serve_command(magics: Any, args: Any, usage: str) -> Report | None:
    from jupyter_agent.features.mcp_server import serving
    from jupyter_agent.features.mcp_server.view import stopped_report

    if args.action == "stop":
        server = serving()
        if server is None:
            return Report("No MCP server is running in this kernel.")
        server.stop()
        return stopped_report(server)
    if args.action is not None:
        raise UsageError(f"%agent serve takes options, or 'stop'; got {args.action!r}\n{usage}")
    _start(magics, args)
    return None


def serve_options(magics: Any, args: Any) -> tuple[PermissionMode, AgentConfig, tuple[str, ...], Any]:
    """(permission mode, settings, tool names, session) of ``%agent serve``, within the site policy."""
    from jupyter_agent.notebook.site_limits import limit_config, limit_permissions, load_site_policy
    from jupyter_agent.session import SessionLockedError

    try:
        policy = load_site_policy()  # the administrator's ceilings bind external agents as they bind turns
        config = limit_config(AgentConfig.from_magics(magics), policy)
        permissions = limit_permissions(choose_permissions(args.permissions, config) or "ask", policy)
        names = parse_tool_list(args.tools) if args.tools else SERVE_TOOLS
        if names == ("none",):
            raise UnknownToolError("%agent serve needs at least one tool: --tools none serves nothing")
        session = magics.sessions.get(args.session or SERVE_SESSION)
    except (UnknownToolError, SessionLockedError, ValueError) as error:  # SitePolicyError is a ValueError
        raise UsageError(str(error)) from None
    return permissions, config, names, session


def _start(magics: Any, args: Any) -> None:
    from IPython.display import display

    from jupyter_agent.features.mcp_server import AlreadyServingError, McpServe, PortUnavailableError, ServeSettings
    from jupyter_agent.features.mcp_server.view import serving_report

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise UsageError(NO_LOOP) from None
    permissions, config, names, session = serve_options(magics, args)
    shell = magics.shell
    steps = _Steps(session)
    mode = frontend.frontend_mode(shell)
    renderer = frontend.make_renderer(mode, model_label="MCP server", session=session.name, context_window=None, demo=False)
    tools = build_tools(
        shell,
        session,
        selected=names,
        data_policy=config.data_policy,
        sample_rows=config.sample_rows,
        bash_timeout=config.bash_timeout,
        current_step=steps.current,
        live_renderer=lambda: renderer,  # an external call's output shows in its card as it is printed
    )
    server = McpServe(
        tools=tools,
        session=session,
        renderer=renderer,
        shell=shell,
        settings=ServeSettings(port=args.port, permissions=permissions),
        after_call=steps.next,
        run_code=_interruptible,
    )
    try:
        server.start()
    except (AlreadyServingError, PortUnavailableError) as error:
        raise UsageError(str(error)) from None
    renderer.on_stop = server.stop  # the panel's Stop button stops serving
    renderer.set_model(f"MCP server {server.url}", None)
    display(serving_report(server, [tool.name for tool in tools], session.name))
    frontend.show(renderer)


async def _interruptible(work: Any) -> Any:
    """A python call's code, reached by the kernel's Interrupt (■) as a turn's code is.

    ipykernel ignores SIGINT while no cell executes, which is when external calls run; guarded,
    ■ raises inside the code, and the call returns an "interrupted" result to its client.
    """
    from jupyter_agent.notebook.interrupt import interrupt_router

    router, token = interrupt_router(), object()
    with router.guard(token, lambda: None):
        return await asyncio.get_running_loop().create_task(work(), context=router.bind(token))


class _Steps:
    """Each external call is one step of the session: ``%agent undo`` reverts its file changes."""

    def __init__(self, session: Any) -> None:
        self._snapshots = session.snapshots
        known = [step.step for step in self._snapshots.steps()] if self._snapshots is not None else []
        self._step = max(known, default=0) + 1

    def current(self) -> int:
        return self._step

    def next(self) -> None:
        if self._snapshots is not None:
            self._snapshots.settle()
        self._step += 1


__all__ = ["SERVE_SESSION", "SERVE_TOOLS", "serve_command"]
