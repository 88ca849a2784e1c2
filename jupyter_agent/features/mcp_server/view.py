"""``%agent serve [--port N] [-p MODE] [--tools LIST] [-s NAME]`` and ``%agent serve stop``.

Wires the kernel's MCP server (``features.mcp_server``) to the notebook: the tools a turn would
get (same data policy, caps and images, the serving features' tools and watch), the session that
records the calls (``serve``), and the serve cell's panel, where each call is a card and approvals
are asked.

What it prints: the URL, the token, and how to give them to a client, ready to paste: Claude Code's ``claude mcp add`` command, Codex's ``codex mcp add`` (the token in
an environment variable, as Codex wants it) and a ``.mcp.json`` entry (the format Claude Code,
Cursor and most MCP clients read). When a server of this notebook was given to clients before (a
kernel restart gives a new token and often a new port), the commands are the *replace* form
(``claude mcp remove … && claude mcp add …``). The token lives as long as the server:
``%agent serve stop`` (or the kernel's end) makes it worthless.

The token is never in a saved output: the cell's report shows it masked, and only the live panel
holds it (``token_html``, with copy buttons; a reloaded page gets it again from the kernel while
the server runs). The panel's content travels as comm messages, which a notebook never saves,
and its static rendering (when the server stops) leaves it out. The terminal prints it whole.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
from typing import TYPE_CHECKING, Callable, Coroutine

from IPython.core.error import UsageError

from jupyter_agent.features.mcp_server.server import CLIENT_ENTRY_NAME
from jupyter_agent.notebook import frontend
from jupyter_agent.notebook.config import AgentConfig
from jupyter_agent.notebook.config import serve_options as setting_options
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import Subcommand, arg
from jupyter_agent.notebook.toolset import UnknownToolError, build_tools, data_policy, parse_tool_list, privacy_gate
from jupyter_agent.notebook.views import FeatureViews

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.features.mcp_server import McpServe
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.loop import AgentTool
    from jupyter_agent.loop.types import ToolReturn
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.renderer import Renderer
    from jupyter_agent.notebook.session_manager import AgentSession

TOKEN_VARIABLE = "JUPYTER_KERNEL_MCP_TOKEN"  # where Codex reads the bearer token from
MASKED_TOKEN = "<token: in the live panel below>"  # what every saved or static output shows instead


def claude_command(url: str, token: str, replace: bool = False) -> str:
    header = shlex.quote(f"Authorization: Bearer {token}")
    add = f"claude mcp add --transport http {CLIENT_ENTRY_NAME} {url} --header {header}"
    return f"claude mcp remove {CLIENT_ENTRY_NAME} && {add}" if replace else add


def codex_commands(url: str, token: str, replace: bool = False) -> str:
    """Two lines: the token into the environment Codex starts in, and the server added by URL."""
    add = f"codex mcp add {CLIENT_ENTRY_NAME} --url {url} --bearer-token-env-var {TOKEN_VARIABLE}"
    return f"export {TOKEN_VARIABLE}={shlex.quote(token)}\n" + (
        f"codex mcp remove {CLIENT_ENTRY_NAME} && {add}" if replace else add
    )


def mcp_json_entry(url: str, token: str) -> str:
    entry = {"mcpServers": {CLIENT_ENTRY_NAME: {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}}}
    return json.dumps(entry, indent=2)


def serving_report(server: McpServe, tool_names: list[str], session: str, *, reveal: bool = False) -> Report:
    """What the serve cell says; the token masked unless ``reveal`` (the terminal, which saves nothing)."""
    url, mode = server.url, server.settings.permissions
    token = server.token if reveal else MASKED_TOKEN
    replace = server.replaces
    again = (
        "A server of this notebook was given to clients before (its token is void now): replace it in each client. "
        if replace
        else ""
    )
    tools = ", ".join(tool_names)
    asks = {
        "ask": "mutating calls wait for your approval in the panel below",
        "readonly": "mutating calls are refused (read-only)",
        "yolo": "every call runs without asking",
    }[mode]
    markdown = "\n\n".join(
        [
            f"**Serving this kernel over MCP** at `{url}` (127.0.0.1 only), permissions `{mode}`: {asks}.",
            f"Tools: {tools}. Calls are recorded in session `{session}`. Stop with `%agent serve stop`.",
            f"Bearer token: `{token}`" + ("" if reveal else " (never saved in the notebook)"),
            f"{again}Claude Code:\n\n```sh\n{claude_command(url, token, replace)}\n```",
            f"Codex:\n\n```sh\n{codex_commands(url, token, replace)}\n```",
            f"`.mcp.json`:\n\n```json\n{mcp_json_entry(url, token)}\n```",
        ]
    )
    text = "\n".join(
        [
            f"Serving this kernel over MCP at {url} (127.0.0.1 only), permissions {mode}: {asks}.",
            f"Tools: {tools}. Calls are recorded in session {session}. Stop with %agent serve stop.",
            f"Bearer token: {token}",
            f"{again}Claude Code: {claude_command(url, token, replace)}",
            "Codex: " + codex_commands(url, token, replace).replace("\n", " && "),
            f".mcp.json: {json.dumps(json.loads(mcp_json_entry(url, token)))}",
        ]
    )
    return Report(markdown, text)


def token_html(server: McpServe) -> str:
    """The live panel's part: the token and the ready-to-paste commands, each with a copy button."""
    from html import escape

    url, token, replace = server.url, server.token, server.replaces
    items = [
        ("Bearer token", token),
        ("Claude Code", claude_command(url, token, replace)),
        ("Codex", codex_commands(url, token, replace)),
        (".mcp.json", mcp_json_entry(url, token)),
    ]
    rows = "".join(
        f'<div class="ja-serve-secret"><b>{escape(label)}</b> '
        f'<button class="ja-copy" data-copy="{escape(value, quote=True)}" '
        "onclick=\"navigator.clipboard.writeText(this.dataset.copy);this.textContent='Copied'\">Copy</button>"
        f"<pre>{escape(value)}</pre></div>"
        for label, value in items
    )
    return f'<div class="ja-serve-token">{rows}<i>Shown only here, while the server runs: never saved in the notebook.</i></div>'


def stopped_report(server: McpServe) -> Report:
    calls = server.calls.calls if server.calls is not None else 0
    refused = server.refused
    wrong = f" {refused} refused request{'s' if refused != 1 else ''}: wrong token." if refused else ""
    text = (
        f"Stopped the MCP server at {server.url}: {calls} call{'s' if calls != 1 else ''} served, "
        f"recorded in session {server.session.name}.{wrong}"
    )
    return Report(
        text.replace(server.url, f"`{server.url}`").replace(f"session {server.session.name}", f"session `{server.session.name}`"),
        text,
    )


SERVE_SESSION = "serve"
SERVE_TOOLS = ("variables", "inspect", "python", "notebook_read", "notebook_edit", "notebook_run")
SERVE_SUMMARY = "Serve this kernel's tools over MCP to an external agent (Claude Code, Codex…); 'stop' ends it."
SERVE_ARGUMENTS = (
    arg("action", nargs="?", metavar="stop", help="stop the running server"),
    arg("--port", type=int, default=0, metavar="N", help="port on 127.0.0.1 (default: a free one)"),
    # A turn's settings that serving takes (-p, --tools), declared with them (features/settings.py).
    *(arg(*item.flags, **{**item.keywords, "help": item.serve}) for item in setting_options()),
    arg("-s", "--session", metavar="NAME", help="the session that records the calls (default: serve)"),
)
NO_LOOP = (
    "%agent serve needs the kernel's event loop: run it in a Jupyter notebook (terminal IPython has no loop between prompts)"
)


def serve_command(magics: AgentMagics, args: argparse.Namespace, usage: str) -> Report | None:
    from jupyter_agent.features.mcp_server import serving

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


def serve_options(magics: AgentMagics, args: argparse.Namespace) -> tuple[TurnSettings, tuple[str, ...], AgentSession]:
    """(settings, tool names, session) of ``%agent serve``, within the site policy."""
    from jupyter_agent.notebook.site_limits import load_site_policy
    from jupyter_agent.session import SessionLockedError

    try:
        policy = load_site_policy()  # the administrator's ceilings bind external agents as they bind turns
        settings = policy.apply(AgentConfig.from_magics(magics).turn({"permissions": args.permissions}))
        names = parse_tool_list(args.tools) if args.tools else SERVE_TOOLS
        if names == ("none",):
            raise UnknownToolError("%agent serve needs at least one tool: --tools none serves nothing")
        session = magics.sessions.get(args.session or SERVE_SESSION)
    except (UnknownToolError, SessionLockedError, ValueError) as error:  # SitePolicyError is a ValueError
        raise UsageError(str(error)) from None
    return settings, names, session


def _start(magics: AgentMagics, args: argparse.Namespace) -> None:
    from IPython.display import display

    from jupyter_agent.features.mcp_server import AlreadyServingError, McpServe, PortUnavailableError, ServeSettings

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise UsageError(NO_LOOP) from None
    settings, names, session = serve_options(magics, args)
    data = data_policy(settings.data_policy, settings.sample_rows, settings.data_ceiling)
    shell = magics.shell
    assert shell is not None  # a magic only runs inside a shell
    steps = _Steps(session)
    mode = frontend.frontend_mode(shell)
    renderer = frontend.make_renderer(mode, model_label="MCP server", session=session.name, context_window=None, demo=False)
    tools = build_tools(
        shell,
        session,
        selected=names,
        policy=data,
        bash_timeout=settings.bash_timeout,
        python_timeout=settings.python_timeout,
        current_step=steps.current,
        live_renderer=lambda: renderer,  # an external call's output shows in its card as it is printed
    )
    tools = _served(tools, shell, session, names, settings, renderer, steps.current)
    server = McpServe(
        tools=tools,
        session=session,
        renderer=renderer,
        shell=shell,
        settings=ServeSettings(port=args.port, permissions=settings.permissions),
        after_call=steps.next,
        run_code=_interruptible,
        privacy=privacy_gate(data),  # what leaves the kernel passes the turns' gate: data policy, secrets
    )
    try:
        server.start()
    except (AlreadyServingError, PortUnavailableError) as error:
        raise UsageError(str(error)) from None
    renderer.on_stop = server.stop  # the panel's Stop button stops serving
    renderer.set_model(f"MCP server {server.url}", None)
    # The token only where nothing is saved: the live panel, or the terminal (see the docstring).
    display(serving_report(server, [tool.name for tool in tools], session.name, reveal=mode == "terminal"))
    live_only = getattr(renderer, "live_only", None)
    if live_only is not None:
        live_only.show(token_html(server))
    frontend.show(renderer)


async def _interruptible(work: Callable[[], Coroutine[object, object, ToolReturn]]) -> ToolReturn:
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

    def __init__(self, session: AgentSession) -> None:
        self._snapshots = session.snapshots
        known = [step.step for step in self._snapshots.steps()] if self._snapshots is not None else []
        self._step = max(known, default=0) + 1

    def current(self) -> int:
        return self._step

    def next(self) -> None:
        if self._snapshots is not None:
            self._snapshots.settle()
        self._step += 1


def _served(
    tools: list[AgentTool],
    shell: InteractiveShell,
    session: AgentSession,
    names: tuple[str, ...],
    config: TurnSettings,
    renderer: Renderer,
    step: Callable[[], int],
) -> list[AgentTool]:
    """The toolset's tools with what the serving features add (the notebook tools, the watch of
    python calls), opened as for a turn with the serve's settings."""
    from jupyter_agent.features.registry import FEATURES
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.notebook.toolset import run_control, with_feature_tools

    settings = TurnSettings(tools=names, undo_snapshot_mb=config.undo_snapshot_mb)
    serving = [feature for feature in FEATURES if feature.serves]
    return with_feature_tools(
        tools,
        shell,
        session,
        settings,
        features=serving,
        current_step=step,
        emit=renderer.handle,
        note=renderer.note,
        run_control=run_control(shell, session, config.python_timeout, config.ask_slow_cells),
        ask=renderer.ask,
    )


def _serve(magics: AgentMagics, args: argparse.Namespace) -> Report | None:
    return serve_command(magics, args, SERVE_COMMAND.parser().format_usage().strip())


SERVE_COMMAND = Subcommand("serve", SERVE_SUMMARY, _serve, SERVE_ARGUMENTS)

VIEWS = FeatureViews(commands=(SERVE_COMMAND,))

__all__ = [
    "CLIENT_ENTRY_NAME",
    "MASKED_TOKEN",
    "SERVE_COMMAND",
    "SERVE_SESSION",
    "SERVE_TOOLS",
    "TOKEN_VARIABLE",
    "VIEWS",
    "claude_command",
    "codex_commands",
    "mcp_json_entry",
    "serve_command",
    "serve_options",
    "serving_report",
    "stopped_report",
    "token_html",
]
