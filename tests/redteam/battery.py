"""The adversarial battery of issue 25: escapes, lost records and leftover processes, counted.

Each probe attacks one surface the way a hostile workspace, notebook or model would and counts
what got through:

* **escapes**: what the docs promise cannot happen and did (a file tool read or wrote outside the
  workspace through a swapped symlink; a turn ran ``python`` past the site policy's ceiling, or
  with a broken policy; an MCP timeout without a bound was accepted; a server's log grew past
  its cap; a client session outlived the idle expiry);
* **lost records**: session records the file does not give back (a line dropped for one bad byte;
  a run that reported ``completed`` while its records could not be written);
* **left processes**: processes alive after the command, the server or the kernel that started
  them ended (those that asked to detach, ``setsid``/``nohup``, are counted apart: they are kept
  by design).

Run it against any checkout (``PYTHONPATH`` decides which code is attacked)::

    python tests/redteam/battery.py            # the fast part (what tests/redteam/test_battery.py runs)
    python tests/redteam/battery.py --full     # the issue's sizes: thousands of race iterations

It prints one line per case and the totals per surface. No figure depends on timing: races are
counted over many iterations, and waits are bounded polls.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import textwrap
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from jupyter_agent.testing.processes import kill_marked, marked, sleeper, still_marked
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until_blocking

HERE = pathlib.Path(__file__).resolve().parent
TESTS = HERE.parent
SECRET = "OUTSIDE-SECRET-7c1e"
OUTSIDE_NAME = "OUTSIDE-NAME-only-outside.txt"
FAST = {"reads": 300, "writes": 200, "edits": 100, "walks": 60, "sessions": 40, "log_mb": 30}
FULL = {"reads": 3000, "writes": 2000, "edits": 1000, "walks": 500, "sessions": 400, "log_mb": 100}


@dataclass
class Figure:
    surface: str
    case: str
    trials: int = 1
    escapes: int = 0
    lost: int = 0
    left: int = 0
    detached: int = 0  # processes kept by the user's explicit choice (setsid, nohup)
    hangs: int = 0  # a call or a turn that did not end within its bound
    crashes: int = 0  # an exception other than the tool's own refusal, or a raw traceback shown
    note: str = ""

    def line(self) -> str:
        parts = [f"{self.trials:>5} trials", f"escapes {self.escapes}", f"lost {self.lost}", f"left {self.left}"]
        parts += [f"{name} {getattr(self, name)}" for name in ("hangs", "crashes") if getattr(self, name)]
        if self.detached:
            parts.append(f"detached by choice {self.detached}")
        return f"  {self.case:<58} " + ", ".join(parts) + (f"  ({self.note})" if self.note else "")

    @property
    def dirty(self) -> bool:
        return bool(self.escapes or self.lost or self.left or self.hangs or self.crashes)


COUNTS = ("escapes", "lost", "left", "hangs", "crashes")


# -- processes: jupyter_agent.testing.processes (marked, still_marked, kill_marked, sleeper) ------

# -- file tools -------------------------------------------------------------------------------

SWAPPER = """
import ctypes, os, sys
os.chdir(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE = 2
AT_FDCWD = -100
while True:  # 'd' is always there: the real folder or the link that leads outside, swapped atomically
    libc.renameat2(AT_FDCWD, b"d", AT_FDCWD, b".other", RENAME_EXCHANGE)
"""


class RaceBed:
    """A workspace whose ``d`` is swapped, atomically and without pause, between a folder inside
    and a symbolic link to a folder outside that holds the secret."""

    def __init__(self) -> None:
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="redteam-files-"))
        self.workspace = self.root / "ws"
        self.outside = self.root / "outside"
        (self.workspace / "d").mkdir(parents=True)
        self.outside.mkdir()
        (self.outside / "secret.txt").write_text(SECRET + "\n")
        (self.outside / OUTSIDE_NAME).write_text(SECRET + "\n")
        (self.workspace / "d" / "secret.txt").write_text("inside\n")
        os.symlink(self.outside, self.workspace / ".other")
        self.swapper: subprocess.Popen | None = None

    def outside_files(self) -> set[str]:
        return set(os.listdir(self.outside))

    def start(self) -> None:
        self.swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(self.workspace)])

    def stop(self) -> None:
        if self.swapper is not None:
            self.swapper.kill()
            self.swapper.wait(10)
            self.swapper = None
        # Leave 'd' as the real folder.
        if (self.workspace / "d").is_symlink():
            os.rename(self.workspace / "d", self.workspace / ".tmp")
            os.rename(self.workspace / ".other", self.workspace / "d")
            os.rename(self.workspace / ".tmp", self.workspace / ".other")

    def cleanup(self) -> None:
        self.stop()
        subprocess.run(["rm", "-rf", str(self.root)], check=False)


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(getattr(block, "text", "") or "" for block in content)
    return str(getattr(content, "content", content))


CALL_BOUND = 60.0  # seconds: a tool call that takes longer is a hang


class Caller:
    """The tools of a workspace called as the loop calls them. A ``ToolError`` is the refusal the docs
    promise; any other exception is a crash and a call past ``CALL_BOUND`` a hang, both counted
    until the next ``figure``."""

    def __init__(self, tools: list[Any]) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.crashes = 0
        self.hangs = 0

    async def __call__(self, name: str, **args: Any) -> str:
        from jupyter_agent import AbortController
        from jupyter_agent.tools import ToolError

        tool = self.tools[name]
        try:
            return _text_of(await asyncio.wait_for(tool.execute(tool.parameters(**args), AbortController().signal), CALL_BOUND))
        except ToolError as error:
            return f"refused: {error}"
        except asyncio.TimeoutError:
            self.hangs += 1
            return "hung"
        except Exception as error:  # noqa: BLE001 - what the probe counts
            self.crashes += 1
            return f"crashed: {error!r}"

    def figure(self, surface: str, case: str, trials: int = 1, escapes: int = 0, **counts: Any) -> Figure:
        figure = Figure(surface, case, trials, escapes, hangs=self.hangs, crashes=self.crashes, **counts)
        self.crashes = self.hangs = 0
        return figure


async def file_tool_races(sizes: dict[str, int]) -> list[Figure]:
    from jupyter_agent.tools import coding_tools

    bed = RaceBed()
    figures = []
    try:
        call = Caller(coding_tools(bed.workspace))
        (bed.workspace / "d" / "e.txt").write_text("edit-0\n")
        (bed.outside / "e.txt").write_text("edit-0\n")
        bed.start()
        reads = sizes["reads"]
        leaked = 0
        for _ in range(reads):
            leaked += SECRET in await call("read", path="d/secret.txt")
        figures.append(call.figure("file tools", "read d/secret.txt while d is swapped for a link out", reads, leaked))

        writes = sizes["writes"]
        before = bed.outside_files()
        for index in range(writes):
            await call("write", path=f"d/w{index}.txt", content="written\n")
        created = len(bed.outside_files() - before)
        figures.append(call.figure("file tools", "write d/new file while d is swapped", writes, created))

        before = bed.outside_files()
        for index in range(writes // 4):
            await call("write", path=f"d/sub{index}/f.txt", content="written\n")
        created = len(bed.outside_files() - before)
        figures.append(call.figure("file tools", "write d/new folder/file while d is swapped", writes // 4, created))

        edits, changed = sizes["edits"], 0
        for _ in range(edits):
            seen = await call("read", path="d/e.txt")
            token = next((word for word in seen.replace("|", " ").split() if word.startswith("edit-")), None)
            if token is not None:
                number = int(token.split("-")[1])
                await call("edit", path="d/e.txt", old_text=token, new_text=f"edit-{number + 1}")
            if (bed.outside / "e.txt").read_text() != "edit-0\n":
                changed += 1
                (bed.outside / "e.txt").write_text("edit-0\n")
        figures.append(call.figure("file tools", "read then edit d/e.txt while d is swapped", edits, changed))

        walks = sizes["walks"]
        shown = 0
        for _ in range(walks):
            outputs = [
                await call("list", path="d"),
                await call("glob", pattern="d/*"),
                await call("grep", pattern="OUTSIDE-SECRET", path="d"),
                await call("grep", pattern="OUTSIDE-SECRET"),
            ]
            shown += sum(OUTSIDE_NAME in text or SECRET in text for text in outputs)
        figures.append(call.figure("file tools", "list, glob, grep into d while d is swapped", walks * 4, shown))
    finally:
        bed.cleanup()
    return figures


FILE_SWAPPER = """
import ctypes, os, sys
os.chdir(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
while True:  # 'f.txt' is always there: a file inside or a link to the secret outside, swapped atomically
    libc.renameat2(-100, b"f.txt", -100, b".f-other", 2)
"""


async def file_tool_last_component_races(sizes: dict[str, int]) -> list[Figure]:
    """The file itself (not a folder above it) swapped between a regular file and a link out."""
    from jupyter_agent.tools import coding_tools

    root = pathlib.Path(tempfile.mkdtemp(prefix="redteam-leaf-"))
    workspace, outside = root / "ws", root / "outside"
    workspace.mkdir()
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text(SECRET + "\n")
    (workspace / "f.txt").write_text("inside-0\n")
    os.symlink(secret, workspace / ".f-other")
    swapper = subprocess.Popen([sys.executable, "-c", FILE_SWAPPER, str(workspace)])
    figures = []
    try:
        call = Caller(coding_tools(workspace))
        reads = sizes["reads"]
        leaked = sum([SECRET in await call("read", path="f.txt") for _ in range(reads)])
        figures.append(call.figure("file tools", "read f.txt while f.txt is swapped for a link out", reads, leaked))
        writes, changed, armed = sizes["writes"], 0, 0
        for index in range(writes):
            # A write replaces whichever of the two names it hit by a regular file: re-arm the link.
            links = [name for name in ("f.txt", ".f-other") if os.path.islink(workspace / name)]
            if not links:
                with contextlib.suppress(OSError):
                    os.symlink(secret, root / "link")
                    os.rename(root / "link", workspace / ".f-other")  # atomic: the swapper always finds both names
            armed += bool(links)
            await call("read", path="f.txt")
            await call("write", path="f.txt", content=f"inside-{index}\n")
            await call("edit", path="f.txt", old_text="inside", new_text="edited")
            if secret.read_text() != SECRET + "\n":
                changed += 1
                secret.write_text(SECRET + "\n")
        figures.append(
            call.figure(
                "file tools",
                "read, write, edit f.txt while it is swapped",
                writes * 3,
                changed,
                note=f"link armed {armed}/{writes}",
            )
        )
    finally:
        swapper.kill()
        swapper.wait(10)
        subprocess.run(["rm", "-rf", str(root)], check=False)
    return figures


async def file_tool_path_tricks() -> list[Figure]:
    """The static tricks: .., absolute paths, links out, a link loop, special files; malformed arguments."""
    from jupyter_agent.tools import coding_tools

    root = pathlib.Path(tempfile.mkdtemp(prefix="redteam-paths-"))
    try:
        workspace, outside = root / "ws", root / "outside"
        workspace.mkdir()
        outside.mkdir()
        (outside / "secret.txt").write_text(SECRET + "\n")
        os.symlink(outside / "secret.txt", workspace / "link.txt")
        os.symlink(outside, workspace / "out")
        os.symlink("loop", workspace / "loop")
        os.mkfifo(workspace / "fifo")
        (workspace / "a.txt").write_text("inside\n")
        call = Caller(coding_tools(workspace))
        attempts = [
            ("read", {"path": "../outside/secret.txt"}),
            ("read", {"path": str(outside / "secret.txt")}),
            ("read", {"path": "link.txt"}),
            ("read", {"path": "out/secret.txt"}),
            ("read", {"path": "out/../out/secret.txt"}),
            ("read", {"path": "loop"}),
            ("read", {"path": "fifo"}),
            ("list", {"path": "out"}),
            ("glob", {"pattern": "out/*"}),
            ("glob", {"pattern": "../outside/*"}),
            ("glob", {"pattern": "**/secret.txt"}),
            ("grep", {"pattern": "OUTSIDE", "path": "out"}),
            ("grep", {"pattern": "OUTSIDE", "path": "link.txt"}),
            ("write", {"path": "out/new.txt", "content": "x"}),
            ("write", {"path": "link.txt", "content": "x"}),
            ("write", {"path": "../outside/new2.txt", "content": "x"}),
            ("write", {"path": "fifo", "content": "x"}),
            ("edit", {"path": "link.txt", "old_text": "OUTSIDE", "new_text": "x"}),
        ]
        escapes = 0
        for name, args in attempts:
            escapes += SECRET in await call(name, **args)
        escapes += len(set(os.listdir(outside)) - {"secret.txt"})
        escapes += (outside / "secret.txt").read_text() != SECRET + "\n"
        figures = [call.figure("file tools", "static path tricks (.., absolute, links out, loop, FIFO)", len(attempts), escapes)]
        malformed = [
            ("read", {"path": "a\x00b"}),
            ("read", {"path": "x" * 5000}),
            ("read", {"path": "/".join(["x"] * 3000)}),
            ("read", {"path": ""}),
            ("read", {"path": "\udc80"}),
            ("read", {"path": "a.txt", "offset": 10**18}),
            ("list", {"path": "x" * 5000}),
            ("glob", {"pattern": "a\x00b"}),
            ("glob", {"pattern": "/".join(["**"] * 200)}),
            ("grep", {"pattern": "(", "path": "."}),
            ("grep", {"pattern": "x", "path": "a\x00b"}),
            ("grep", {"pattern": "(a+)+$", "path": "."}),
            ("write", {"path": "a\x00b", "content": "x"}),
            ("write", {"path": "x" * 300, "content": "x"}),
            ("write", {"path": "new.txt", "content": "half \ud83d of an emoji"}),
            ("edit", {"path": "a.txt", "old_text": "inside", "new_text": "\udc80"}),
            ("bash", {"command": "echo a\x00b"}),
            ("bash", {"command": "\udc80"}),
        ]
        await call("read", path="a.txt")
        for name, args in malformed:
            await call(name, **args)
        escapes = len(set(os.listdir(outside)) - {"secret.txt"})
        figures.append(
            call.figure("file tools", "malformed arguments (NUL, 5 000-char paths, lone surrogates)", len(malformed), escapes)
        )
        return figures
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)


# -- bash -------------------------------------------------------------------------------------


HUP_CATCHER = """
import os, signal, sys, time
if sys.argv[1] == "spawn":  # a new job in the session after the hangup was sent: it must hear one too
    signal.signal(signal.SIGHUP, lambda *_: os.system(sys.argv[2] + " &"))
else:
    signal.signal(signal.SIGHUP, lambda *_: None)  # handled, not ignored: no nohup
time.sleep(600)
"""


def hup_catcher(marker: str, spawn: bool = False) -> str:
    import shlex

    return shlex.join([sys.executable, "-c", HUP_CATCHER, "spawn" if spawn else "catch", sleeper(marker + "-late"), marker])


async def bash_jobs() -> list[Figure]:
    from jupyter_agent.tools import coding_tools

    root = pathlib.Path(tempfile.mkdtemp(prefix="redteam-bash-"))
    call = Caller(coding_tools(root, bash_timeout=30))
    figures = []
    cases = [
        ("a background job of a command that exits (sleep &)", "{s} &", None, False),
        ("a job in a subshell that exits", "( {s} & ) ; echo started", None, False),
        ("a job that double forks", "( ( {s} & ) & ) ; echo started", None, False),
        ("a job with its output redirected", "{s} > /dev/null 2>&1 &", None, False),
        ("a job disowned", "{s} & disown", None, False),
        ("a job that catches SIGHUP and goes on", "{catch} > /dev/null 2>&1 &", None, False),
        ("a job that starts another when hung up", "{spawn} > /dev/null 2>&1 &", None, False),
        ("a job of a command that times out", "{s} & sleep 60", 1, False),
        ("nohup (detached by choice)", "nohup {s} > /dev/null 2>&1 &", None, True),
        ("setsid (detached by choice)", "setsid {s} > /dev/null 2>&1 < /dev/null &", None, True),
    ]
    try:
        for case, command, timeout, detached in cases:
            marker = f"redteam-bash-{uuid.uuid4().hex[:10]}"
            args: dict[str, Any] = {
                "command": command.format(s=sleeper(marker), catch=hup_catcher(marker), spawn=hup_catcher(marker, spawn=True))
            }
            if timeout:
                args["timeout"] = timeout
            await call("bash", **args)
            alive = still_marked(marker, 3.0 if not detached else 0.5)
            figure = call.figure("bash", case)
            if detached:
                figure.detached = len(alive)
            else:
                figure.left = len(alive)
            figures.append(figure)
            kill_marked(marker)
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)
    return figures


# -- kernels ----------------------------------------------------------------------------------


def _kernel(folder: pathlib.Path, env: dict[str, str] | None = None) -> Any:
    sys.path.insert(0, str(TESTS / "notebook"))
    from kernel_harness import notebook_kernel

    return notebook_kernel(folder, model="", notebook_name="redteam.ipynb", env=env)


def _kernel_pid(kernel: Any) -> int:
    return kernel.km.provisioner.process.pid


def _kernel_gone(kernel: Any, how: str) -> None:
    if how == "SIGKILL":
        os.kill(_kernel_pid(kernel), signal.SIGKILL)
        kernel.km.provisioner.process.wait(30)
        kernel.kc.stop_channels()
    else:
        kernel.kc.stop_channels()
        kernel.km.shutdown_kernel(now=False)


MCP_WITH_CHILDREN = "{plain} & setsid {detached} > /dev/null 2>&1 < /dev/null & exec {python} {server}"


def _mcp_config_code(name: str, marker: str) -> str:
    from jupyter_agent.testing import mcp_demo_server

    command = MCP_WITH_CHILDREN.format(
        plain=sleeper(marker + "-plain"),
        detached=sleeper(marker + "-setsid"),
        python=sys.executable,
        server=mcp_demo_server.__file__,
    )
    return textwrap.dedent(
        f"""
        from pathlib import Path
        from jupyter_agent.features.mcp.config import ServerConfig
        from jupyter_agent.features.mcp.registry import registry
        _config = ServerConfig(name={name!r}, source="redteam", transport="stdio", command="bash", args=("-c", {command!r}))
        _connections = await registry().ensure([_config], log_folder=Path.cwd(), redact=str)
        _connections[0].status
        """
    )


def mcp_children(how: str) -> Figure:
    """An MCP server that starts a plain child and a ``setsid`` child, then the server or kernel ends."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-mcp-"))
    marker = f"redteam-mcp-{uuid.uuid4().hex[:10]}"
    kernel = _kernel(folder)
    try:
        status = kernel.execute(_mcp_config_code("kids", marker), timeout=60)
        del status
        started = settle_started(marker)
        if how == "stop":
            kernel.execute("await registry().stop_all()", timeout=60)
        else:
            _kernel_gone(kernel, how)
        left = still_marked(marker, 4.0)
        case = {
            "stop": "a server with a plain and a setsid child, stopped",
            "shutdown": "… the kernel shut down",
            "SIGKILL": "… the kernel killed with SIGKILL",
        }[how]
        return Figure("MCP servers", case, trials=started, left=len(left))
    finally:
        kill_marked(marker)
        kernel.shutdown()
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def settle_started(marker: str, count: int = 2, timeout: float = 20.0) -> int:
    try:
        wait_until_blocking(lambda: len(marked(marker)) >= count, timeout, f"{count} marked processes", every=0.05)
    except AssertionError:
        pass  # how many started is the figure
    return len(marked(marker))


def bash_at_kernel_end(how: str) -> Figure:
    """A bash command (with a background job) still running when the kernel ends."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-bashk-"))
    marker = f"redteam-bashk-{uuid.uuid4().hex[:10]}"
    kernel = _kernel(folder)
    try:
        command = f"{sleeper(marker + '-job')} & {sleeper(marker + '-fg')}"
        kernel.execute(
            textwrap.dedent(
                f"""
                import asyncio
                from jupyter_agent import AbortController
                from jupyter_agent.tools import coding_tools
                _bash = {{t.name: t for t in coding_tools('.', bash_timeout=1000)}}['bash']
                _task = asyncio.ensure_future(_bash.execute(_bash.parameters(command={command!r}), AbortController().signal))
                """
            )
        )
        started = settle_started(marker)
        _kernel_gone(kernel, how)
        left = still_marked(marker, 4.0)
        case = {"shutdown": "a command running when the kernel shuts down", "SIGKILL": "… when the kernel is killed (SIGKILL)"}[
            how
        ]
        return Figure("bash", case, trials=started, left=len(left))
    finally:
        kill_marked(marker)
        kernel.shutdown()
        subprocess.run(["rm", "-rf", str(folder)], check=False)


# -- MCP configuration ------------------------------------------------------------------------


MALFORMED_MCP_FILES = {
    "JSON nested 100 000 deep": lambda: '{"mcpServers": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "5 MB of one string": lambda: json.dumps({"mcpServers": {"big": {"command": "x" * 5_000_000}}}),
    "not JSON": lambda: '{"mcpServers": {"a": {"command": "x",}}}',
    "a list, not an object": lambda: "[1, 2]",
    "mcpServers a string": lambda: '{"mcpServers": "all"}',
    "a server that is a number": lambda: '{"mcpServers": {"n": 3}}',
    "args of numbers and env of lists": lambda: '{"mcpServers": {"a": {"command": "x", "args": [1], "env": {"K": []}}}}',
    "a NUL in the command": lambda: '{"mcpServers": {"a": {"command": "x\\u0000y"}}}',
    "a lone surrogate in a name": lambda: '{"mcpServers": {"\\udc80": {"command": "x"}}}',
    "invalid UTF-8 bytes": lambda: b'{"mcpServers": {"\xff": {"command": "x"}}}',
    "NaN and -Infinity timeouts": lambda: (
        '{"mcpServers": {"a": {"command": "x", "startTimeout": NaN, "callTimeout": -Infinity}}}'
    ),
    "a url that is not http": lambda: '{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}',
}


def mcp_malformed_files() -> list[Figure]:
    """Each a project .mcp.json: the promise is one line naming the file, and the other files still used."""
    from jupyter_agent.features.mcp.config import load_config

    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-mcpbad-"))
    user_file = folder / "user-mcp.json"
    user_file.write_text(json.dumps({"mcpServers": {"kept": {"command": "true"}}}))
    raw: list[str] = []  # each problem that is not one line naming the file, or an exception
    dropped = 0
    try:
        for case, make in MALFORMED_MCP_FILES.items():
            content = make()
            path = folder / ".mcp.json"
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
            try:
                config = load_config(folder, folder, None, environ={}, user_file=user_file)
            except Exception as error:  # noqa: BLE001 - what the probe counts
                raw.append(f"{case}: {error!r}"[:120])
                continue
            dropped += "kept" not in config.servers
            bad = [
                problem for problem in config.problems if "\n" in problem or "Traceback" in problem or str(path) not in problem
            ]
            raw += [f"{case}: {problem[:120]}" for problem in bad]
        note = "; ".join(raw) if raw else "each one line naming the file, the user's server kept"
        # An escape: a bad project file dropped the servers of the other files.
        return [
            Figure("MCP servers", "malformed .mcp.json files", len(MALFORMED_MCP_FILES), dropped, crashes=len(raw), note=note)
        ]
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


async def mcp_log_and_timeouts(sizes: dict[str, int]) -> list[Figure]:
    from jupyter_agent.features.mcp.config import load_config
    from jupyter_agent.features.mcp.registry import McpRegistry
    from jupyter_agent.testing import mcp_demo_server

    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-mcpcfg-"))
    figures = []
    try:
        megabytes = sizes["log_mb"]
        flood = f"head -c {megabytes * 1024 * 1024} /dev/zero | tr '\\0' x >&2; exec {sys.executable} {mcp_demo_server.__file__}"
        (folder / ".mcp.json").write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "flood": {"command": "bash", "args": ["-c", flood], "startTimeout": 120},
                        "forever": {"command": "x", "startTimeout": 1e309},
                        "forever-call": {"command": "x", "callTimeout": 1e309},
                        "year": {"command": "x", "startTimeout": 31_536_000},
                    }
                }
            ).replace("1e309", "Infinity")
        )
        config = load_config(folder, folder, None, environ={}, user_file=folder / "none.json")
        unbounded = [
            name
            for name, server in config.servers.items()
            if name != "flood" and (server.start_timeout > 3600 or server.call_timeout > 3600)
        ]
        figures.append(Figure("MCP servers", "startTimeout/callTimeout Infinity or a year accepted", 3, len(unbounded)))
        registry = McpRegistry()
        try:
            await registry.ensure([config.servers["flood"]], log_folder=folder, redact=str)
        finally:
            await registry.stop_all()
        logs = sum(path.stat().st_size for path in folder.glob("mcp-flood.log*"))
        cap = 25 * 1024 * 1024  # two files of the documented 10 MB cap, and some room
        figures.append(
            Figure(
                "MCP servers",
                f"a server writing {megabytes} MB to stderr",
                escapes=int(logs > cap),
                note=f"logs on disk {logs / 1e6:.1f} MB",
            )
        )
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    return figures


# -- serve ------------------------------------------------------------------------------------


async def serve_tokens() -> list[Figure]:
    """Requests without the bearer token, or with a wrong one in every place a client might put it."""
    import httpx

    sys.path.insert(0, str(TESTS / "features" / "mcp_server"))
    from serve_fakes import Renderer, Session, Shell

    from jupyter_agent.features.mcp_server import McpServe, ServeSettings

    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-token-"))
    session = Session(folder / "serve.jsonl")
    server = McpServe(tools=[], session=session, renderer=Renderer(), shell=Shell(), settings=ServeSettings())
    accepted, unauthorized, unsendable, hung = 0, 0, 0, 0
    try:
        server.start()
        token = server.token
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "thief", "version": "1"}},
        }
        accept = {"Accept": "application/json, text/event-stream"}
        wrong = [
            ({}, server.url),
            ({"Authorization": "Bearer "}, server.url),
            ({"Authorization": f"Bearer {token[:-1]}"}, server.url),
            ({"Authorization": f"Bearer {token}x"}, server.url),
            ({"Authorization": f"bearer {token.upper()}"}, server.url),
            ({"Authorization": f"Basic {token}"}, server.url),
            ({"Authorization": token}, server.url),
            ({"X-Api-Key": token}, server.url),
            ({}, f"{server.url}?token={token}"),
            ({"Authorization": "Bearer stale-token-of-the-last-kernel"}, server.url),
            ({"Authorization": f"Bearer {token}"}, server.url.replace("/mcp", "/other")),
            ({"Authorization": f"Bearer {token}\u0000"}, server.url),
        ]
        async with httpx.AsyncClient(timeout=30) as client:
            for headers, url in wrong:
                try:
                    response = await client.post(url, json=initialize, headers={**accept, **headers})
                except httpx.TimeoutException:
                    hung += 1
                    continue
                except (httpx.LocalProtocolError, ValueError):
                    unsendable += 1  # the HTTP client itself refuses such a header
                    continue
                accepted += response.status_code == 200
                unauthorized += response.status_code == 401
            right = await client.post(server.url, json=initialize, headers={**accept, "Authorization": f"Bearer {token}"})
        counted = server.refused
        note = (
            f"{unauthorized} answered 401 and the panel counts {counted}, {unsendable} unsendable, "
            f"the wrong path 404; the right token: {right.status_code}"
        )
        return [Figure("serve", "requests with no, a wrong or a stale bearer token", len(wrong), accepted, hangs=hung, note=note)]
    finally:
        server.stop()
        await server.wait_stopped()
        session.store.close()
        subprocess.run(["rm", "-rf", str(folder)], check=False)


async def serve_sessions(sizes: dict[str, int]) -> list[Figure]:
    """Client sessions opened and never closed: still answered after the idle expiry? Capped?"""
    count = sizes["sessions"]
    cap = count // 2  # the cap asked for where there is one, and judged against where there is none
    opened, _, still, expiring = await _leaky_clients(count, idle=1.0, cap=None, wait=True)
    note = "idle sessions expire" if expiring else "no idle expiry: sessions stay until the server stops"
    figures = [Figure("serve", f"{count} client sessions opened and never closed", len(opened), escapes=len(still), note=note)]
    opened, refused, _, _ = await _leaky_clients(count, idle=600.0, cap=cap, wait=False)
    figures.append(
        Figure(
            "serve",
            f"… {count} opened at once, with a cap of {cap}",
            count,
            escapes=max(0, len(opened) - cap),
            note=f"{len(opened)} opened, {refused} refused with 503",
        )
    )
    return figures


async def _leaky_clients(count: int, *, idle: float, cap: int | None, wait: bool) -> tuple[list[str], int, list[str], bool]:
    """(sessions opened, opening requests refused, sessions still answering after a wait, whether sessions expire)."""
    import httpx

    sys.path.insert(0, str(TESTS / "features" / "mcp_server"))
    from serve_fakes import Renderer, Session, Shell

    from jupyter_agent.features.mcp_server import McpServe, ServeSettings

    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-serve-"))
    session = Session(folder / "serve.jsonl")
    settings = ServeSettings()
    expiring = hasattr(settings, "session_idle_seconds")
    if expiring:
        settings.session_idle_seconds = idle  # type: ignore[attr-defined]
        settings.max_sessions = cap or 10_000  # type: ignore[attr-defined]
    server = McpServe(tools=[], session=session, renderer=Renderer(), shell=Shell(), settings=settings)
    opened: list[str] = []
    refused = 0
    try:
        server.start()
        headers = {"Authorization": f"Bearer {server.token}", "Accept": "application/json, text/event-stream"}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leaky", "version": "1"}},
        }
        async with httpx.AsyncClient(timeout=30) as client:
            for _ in range(count):
                response = await client.post(server.url, json=initialize, headers=headers)
                if response.status_code == 200 and "mcp-session-id" in response.headers:
                    opened.append(response.headers["mcp-session-id"])
                else:
                    refused += 1
            probe = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}

            async def alive(session_id: str) -> bool:
                answer = await client.post(server.url, json=probe, headers={**headers, "mcp-session-id": session_id})
                return answer.status_code != 404

            still: list[str] = []
            if wait:
                # Each look is activity for the session looked at, so looks come only after an idle spell,
                # in which the server must keep running.
                for _ in range(20 if expiring else 1):
                    await assert_quiet_for(2.0, lambda: not server.running, "the server stopping while its clients idle")
                    if not await alive(opened[0]):
                        break
                still = [session_id for session_id in opened if await alive(session_id)]
        return opened, refused, still, expiring
    finally:
        server.stop()
        await server.wait_stopped()
        session.store.close()
        subprocess.run(["rm", "-rf", str(folder)], check=False)


# -- site policy ------------------------------------------------------------------------------

SITE_TURN = """
script({model!r}, tool_calls(call("python", {{"code": "open({marker!r}, 'w').write('ran')"}})), reply("done"))

def _redteam_done(name):
    for session in _agent.sessions.sessions.values():
        if session.name == name:
            return not session.turns or session.turns[-1].task.done()
    return True  # refused before a session was made
"""


def site_policy_tricks() -> list[Figure]:
    """A kernel started under a readonly-ceiling policy; each case tries to run python past it."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-site-"))
    policy = folder / "site" / "jupyter_agent.json"
    policy.parent.mkdir()
    strict = json.dumps({"permissions": {"ceiling": "readonly"}})
    policy.write_text(strict)
    own = folder / "mine.json"
    own.write_text("{}")
    kernel = _kernel(folder, env={"JUPYTER_AGENT_SITE_CONFIG": str(policy)})
    figures = []

    def attempt(case: str, prepare: Callable[[], None] = lambda: None, cell: str = "") -> None:
        prepare()
        if cell:
            kernel.execute(cell)
        marker = str(folder / f"ran-{uuid.uuid4().hex[:8]}")
        model = f"site-{uuid.uuid4().hex[:6]}"
        kernel.execute(SITE_TURN.format(model=model, marker=marker))
        session = f"s{uuid.uuid4().hex[:6]}"
        msg_id = kernel.send(f"%%agent -p yolo -m {model} -s {session}\nwrite the file")
        try:
            kernel.wait_reply(msg_id, 30)
            kernel.wait_for(lambda: kernel.evaluate(f"_redteam_done({session!r})") == "True", 30)
            hung = False
        except AssertionError:
            hung = True
        text = kernel.outputs_of(msg_id)
        raw = "RecursionError" in text or "Traceback" in text
        figures.append(
            Figure(
                "site policy",
                case,
                escapes=int(os.path.exists(marker)),
                hangs=int(hung),
                crashes=int(raw),
                note="raw error shown" if raw else "",
            )
        )

    def replace(make: Callable[[], None]) -> Callable[[], None]:
        def prepare() -> None:
            if policy.is_symlink() or policy.is_file() or policy.is_fifo():
                policy.unlink()
            elif policy.is_dir():
                policy.rmdir()
            make()

        return prepare

    try:
        attempt("the policy as the kernel started with it (control)")
        attempt(
            "JUPYTER_AGENT_SITE_CONFIG set to '' in the kernel", cell="import os; os.environ['JUPYTER_AGENT_SITE_CONFIG'] = ''"
        )
        attempt("… set to a file of the user's own", cell=f"os.environ['JUPYTER_AGENT_SITE_CONFIG'] = {str(own)!r}")
        attempt("… deleted from the kernel's environment", cell="del os.environ['JUPYTER_AGENT_SITE_CONFIG']")
        kernel.execute(f"os.environ['JUPYTER_AGENT_SITE_CONFIG'] = {str(policy)!r}")
        attempt("the policy file replaced by a dangling symlink", replace(lambda: os.symlink(folder / "gone.json", policy)))
        attempt("… by a symlink loop", replace(lambda: os.symlink(policy, policy)))
        attempt("… by a folder", replace(lambda: policy.mkdir()))
        attempt("… by JSON nested 100 000 deep", replace(lambda: policy.write_text("[" * 100_000 + "]" * 100_000)))
        attempt("… by 2 MB of JSON", replace(lambda: policy.write_text(json.dumps({"models": {"allowed": ["x" * 2_000_000]}}))))
        attempt("… by invalid UTF-8", replace(lambda: policy.write_bytes(b'{"permissions": {"ceiling": "\xff"}}')))
        attempt("… by a ceiling of the wrong type", replace(lambda: policy.write_text('{"permissions": {"ceiling": ["yolo"]}}')))
        attempt("… by a FIFO (last: it can block the reader)", replace(lambda: os.mkfifo(policy)))
    finally:
        kernel.shutdown()
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    return figures


# -- session records --------------------------------------------------------------------------


def session_bad_bytes(trials: int = 20) -> Figure:
    from jupyter_agent.messages import UserMessage
    from jupyter_agent.session import SessionStore

    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-session-"))
    try:
        path = folder / "n.agent" / "main.jsonl"
        with SessionStore(path) as store:
            for index in range(trials * 2):
                store.append(UserMessage(content=f"message {index} ok"))
        lines = path.read_bytes().split(b"\n")
        for number in range(1, len(lines) - 1, 4):  # every other record: a bad byte, or a lone surrogate escape
            bad = b"\xff" if number % 8 == 1 else b"\\udc80"
            lines[number] = lines[number].replace(b" ok", b" " + bad + b"ok")
        path.write_bytes(b"\n".join(lines))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kept = SessionStore(path, read_only=True).messages()
        return Figure("session file", "records with an invalid byte or a lone surrogate", trials, lost=trials * 2 - len(kept))
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def session_full_disk() -> Figure:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="redteam-disk-"))
    try:
        path = folder / "n.agent" / "main.jsonl"
        finished = subprocess.run(
            [sys.executable, "-m", "jupyter_agent.testing.full_disk", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=folder,  # not the checkout: "-m" puts the working folder first on sys.path, before PYTHONPATH
        )
        outcome = json.loads(finished.stdout)
        lost = outcome["messages"] - outcome["kept"] if outcome["reason"] == "completed" else 0
        return Figure(
            "session file", "a library run whose file fills up mid-run", lost=lost, note=f"the run ended {outcome['reason']}"
        )
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


# -- the battery ------------------------------------------------------------------------------


def run_battery(full: bool = False, only: set[str] | None = None, kernels: bool = True) -> list[Figure]:
    sizes = FULL if full else FAST
    figures: list[Figure] = []

    def wanted(surface: str) -> bool:
        return only is None or surface in only

    def probe(surface: str, run: Callable[[], Any]) -> None:
        # A probe that raises is itself a finding: counted as a crash, and the battery goes on.
        try:
            found = run()
            figures.extend(found if isinstance(found, list) else [found])
        except Exception as error:  # noqa: BLE001
            figures.append(Figure(surface, f"{getattr(run, '__name__', 'probe')} raised", crashes=1, note=repr(error)[:200]))

    if wanted("files"):
        probe("file tools", lambda: asyncio.run(file_tool_races(sizes)))
        probe("file tools", lambda: asyncio.run(file_tool_last_component_races(sizes)))
        probe("file tools", lambda: asyncio.run(file_tool_path_tricks()))
    if wanted("bash"):
        probe("bash", lambda: asyncio.run(bash_jobs()))
        if kernels:
            for how in ("shutdown", "SIGKILL"):
                probe("bash", lambda how=how: bash_at_kernel_end(how))
    if wanted("mcp"):
        probe("MCP servers", mcp_malformed_files)
        probe("MCP servers", lambda: asyncio.run(mcp_log_and_timeouts(sizes)))
        if kernels:
            for how in ("stop", "shutdown", "SIGKILL"):
                probe("MCP servers", lambda how=how: mcp_children(how))
    if wanted("serve"):
        probe("serve", lambda: asyncio.run(serve_tokens()))
        probe("serve", lambda: asyncio.run(serve_sessions(sizes)))
    if wanted("site") and kernels:
        probe("site policy", site_policy_tricks)
    if wanted("session"):
        probe("session file", session_bad_bytes)
        probe("session file", session_full_disk)
    return figures


def report(figures: list[Figure]) -> str:
    lines = []
    for surface in dict.fromkeys(figure.surface for figure in figures):
        mine = [figure for figure in figures if figure.surface == surface]
        lines.append(f"{surface}: {len(mine)} cases, {sum(f.trials for f in mine)} trials, " + _totals(mine))
        lines += [figure.line() for figure in mine]
    lines.append(f"TOTAL: {len(figures)} cases, {sum(f.trials for f in figures)} trials, " + _totals(figures))
    return "\n".join(lines)


def _totals(figures: list[Figure]) -> str:
    names = {"escapes": "escapes", "lost": "lost records", "left": "processes left", "hangs": "hangs", "crashes": "crashes"}
    return ", ".join(f"{label} {sum(getattr(f, name) for f in figures)}" for name, label in names.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the issue's sizes (thousands of race iterations)")
    parser.add_argument("--only", help="comma-separated surfaces: files, bash, mcp, serve, site, session")
    parser.add_argument("--no-kernels", action="store_true", help="skip the probes that start real kernels")
    options = parser.parse_args()
    only = set(options.only.split(",")) if options.only else None
    import jupyter_agent

    print(f"attacking {pathlib.Path(jupyter_agent.__file__).parent} ({'full' if options.full else 'fast'} sizes)")
    print(report(run_battery(options.full, only, kernels=not options.no_kernels)))


if __name__ == "__main__":
    main()
