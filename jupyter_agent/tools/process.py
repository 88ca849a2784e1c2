"""Running a shell command in its own session that a timeout or an abort kills whole.

The command gets a new session (so it and everything it starts share one process group), stdin
from /dev/null (a command that reads stdin sees EOF at once) and two pipes whose head and tail are
kept while it runs. On timeout or abort the whole tree, including processes that left the group
(``setsid``, daemons; see ``process_tree``), is frozen and recorded, gets SIGTERM, then SIGKILL
after a short grace, always, whether or not the shell is still alive.

A command that exits by itself takes its background jobs with it: its session is hung up as a
terminal's is when it closes (SIGHUP, then SIGKILL after a grace for what neither died nor ignores
it). ``nohup`` and ``setsid`` keep a job running on purpose; a job forked a moment before its shell
exited is first given time to get there (``SETTLE_LIMIT``). A command still running when the kernel
ends is stopped with it (``reaper``: at exit, and by a watchdog if the kernel is killed; the shell
registers with the watchdog itself before it execs, so no kill of the kernel comes too early).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal as signals
import time
from dataclasses import dataclass

from jupyter_agent.loop import AbortSignal
from jupyter_agent.tools.caps import HeadTailBuffer
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.process_tree import (
    become_subreaper,
    descendants,
    freeze_tree,
    not_hung_up,
    send_hang_up,
    settling,
    signal_each,
    signal_group,
)
from jupyter_agent.tools.reaper import registration_pipe, unwatch, watch

# Long enough for a well-behaved process to clean up, short enough that stop feels immediate.
TERM_GRACE = 1.0
# After the shell exits, background jobs may keep the pipes open; their output is not waited for.
DRAIN_GRACE = 0.5
# A job forked just before its shell exited gets this long to exec, ignore the hangup (``nohup``)
# or leave the session (``setsid``): a terminal's user never closes it within the same millisecond.
SETTLE_LIMIT = 1.0
# Pipe reads of one pipe buffer (64 KiB on Linux) at a time.
_CHUNK = 65536


@dataclass
class CommandResult:
    exit_code: int | None
    stdout: HeadTailBuffer[bytes]
    stderr: HeadTailBuffer[bytes]
    timed_out: bool = False
    aborted: bool = False
    seconds: float = 0.0


def shell_path() -> str:
    return shutil.which("bash") or "/bin/sh"


def child_environment() -> dict[str, str]:
    env = dict(os.environ)
    # Pagers would wait for a keypress that never comes.
    env.update(PAGER="cat", GIT_PAGER="cat")
    # The kernel's inline matplotlib backend does not exist outside the kernel.
    if env.get("MPLBACKEND", "").startswith("module://matplotlib_inline"):
        del env["MPLBACKEND"]
    return env


async def run_command(command: str, *, cwd: str, timeout: float, signal: AbortSignal, capture_bytes: int) -> CommandResult:
    stdout: HeadTailBuffer[bytes] = HeadTailBuffer(b"", capture_bytes)
    stderr: HeadTailBuffer[bytes] = HeadTailBuffer(b"", capture_bytes)
    if signal.aborted:
        return CommandResult(None, stdout, stderr, aborted=True)
    started = time.monotonic()
    process = await _start(command, cwd)
    watch(process.pid)
    readers = [
        asyncio.ensure_future(_drain(process.stdout, stdout)),
        asyncio.ensure_future(_drain(process.stderr, stderr)),
    ]
    loop = asyncio.get_running_loop()
    abort_requested = asyncio.Event()

    def on_abort(reason: BaseException) -> None:
        # Listeners may be called from another thread (a stop button, a signal handler).
        loop.call_soon_threadsafe(abort_requested.set)

    signal.add_listener(on_abort)
    exited = asyncio.ensure_future(_exit_of(process))
    abort_wait = asyncio.ensure_future(abort_requested.wait())
    result = CommandResult(None, stdout, stderr)
    tree: set[int] = set()
    try:
        await asyncio.wait({exited, abort_wait}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if not exited.done():
            result.aborted = abort_requested.is_set()
            result.timed_out = not result.aborted
            await kill_tree(process, tree)
        else:
            await hang_up(process.pid)  # its background jobs end with it, unless they detached
        await asyncio.wait(readers, timeout=DRAIN_GRACE)
        result.exit_code = process.returncode
    finally:
        signal.remove_listener(on_abort)
        abort_wait.cancel()
        for reader in readers:
            reader.cancel()
        exited.cancel()
        cancelled = process.returncode is None and not (result.timed_out or result.aborted)
        if cancelled:
            # Cancelled while waiting (the run was stopped): no time for grace, kill now.
            tree |= freeze_tree(process.pid)
        if cancelled or result.timed_out or result.aborted:
            # Always after a stop, even one the shell obeyed: a child forked during the SIGTERM lives on.
            _kill_now(process, tree)
        if process.returncode is None:
            await _reap_briefly(process)
        _close_pipes(process)
        unwatch(process.pid)
    result.seconds = time.monotonic() - started
    return result


async def _start(command: str, cwd: str) -> asyncio.subprocess.Process:
    creating = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            shell_path(),
            "-c",
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=child_environment(),
            start_new_session=True,
            preexec_fn=_child_setup(registration_pipe()),
        )
    )
    try:
        return await asyncio.shield(creating)
    except asyncio.CancelledError:
        # The shell may already run (and have started children) before the creation returns;
        # cancelling it there would kill the shell alone. Let it finish, then kill the tree.
        while not creating.done():
            try:
                await asyncio.shield(creating)
            except asyncio.CancelledError:
                continue
            except OSError:
                break
        if not creating.cancelled() and creating.exception() is None:
            process = creating.result()
            _kill_now(process, freeze_tree(process.pid))
            await _reap_briefly(process)
            _close_pipes(process)
        raise
    except OSError as error:
        raise ToolError(f"The command could not be started: {error}") from None


def _child_setup(reaper_pipe: int | None):
    """What the shell does between fork and exec: become a subreaper, and register with the reaper
    itself, so a kernel killed before ``watch`` runs (the loop still awaiting the spawn) takes the
    command along (a line shorter than PIPE_BUF is written whole, whoever else writes the pipe); and
    hear a hangup as a terminal's shell does."""

    def setup() -> None:
        # A kernel started under ``nohup`` (``nohup jupyter lab &``) ignores SIGHUP, and an ignored
        # signal is inherited: every job would then look like one that chose to outlive its command.
        # A terminal's shell starts with the default; only a job's own ``nohup`` should detach it.
        signals.signal(signals.SIGHUP, signals.SIG_DFL)
        become_subreaper()
        if reaper_pipe is not None:
            try:
                os.write(reaper_pipe, b"+%d\n" % os.getpid())
            except OSError:
                pass  # the reaper is gone; ``watch`` starts another and registers the shell there

    return setup


async def hang_up(session: int) -> None:
    """What a closing terminal does to the jobs a command left in its session (see ``process_tree``)."""
    shell_name = os.path.basename(shell_path()).encode()[:15]  # /proc's comm keeps 15 bytes
    deadline = time.monotonic() + SETTLE_LIMIT
    while settling(session, shell_name) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    if not send_hang_up(session):
        return
    deadline = time.monotonic() + TERM_GRACE
    quiet = 0
    while quiet < 2 and time.monotonic() < deadline:
        # Twice empty in a row: a job forked while /proc was being listed may be missed by one pass.
        left = not_hung_up(session)
        if left:
            signal_each(left, signals.SIGHUP)  # one forked after the hangup was sent has not heard it
            signal_each(left, signals.SIGCONT)
        quiet = 0 if left else quiet + 1
        await asyncio.sleep(0.01)
    signal_each(not_hung_up(session), signals.SIGKILL)


async def kill_tree(process: asyncio.subprocess.Process, tree: set[int]) -> None:
    """SIGTERM to the frozen tree, a grace to clean up, then SIGKILL; ``tree`` gets every member."""
    tree |= freeze_tree(process.pid)
    signal_group(process.pid, signals.SIGTERM)
    signal_each(tree, signals.SIGTERM)
    signal_group(process.pid, signals.SIGCONT)
    signal_each(tree, signals.SIGCONT)
    try:
        await asyncio.wait_for(_exit_of(process), TERM_GRACE)
    except asyncio.TimeoutError:
        pass
    _kill_now(process, tree)
    await _exit_of(process)


def _kill_now(process: asyncio.subprocess.Process, tree: set[int]) -> None:
    if process.returncode is None:
        # The shell, while alive, adopts orphans: sweep once more before the group dies. (Once
        # it is reaped its pid may belong to someone else, so no sweep from it then.)
        tree |= descendants(process.pid)
    signal_each(tree, signals.SIGKILL)
    signal_group(process.pid, signals.SIGKILL)


async def _exit_of(process: asyncio.subprocess.Process) -> int:
    """The shell's exit. ``Process.wait()`` would also wait for every holder of the pipes to close
    them, i.e. for background jobs; polling the return code (set by the child watcher) does not."""
    delay = 0.002
    while process.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return process.returncode


async def _reap_briefly(process: asyncio.subprocess.Process) -> None:
    # Let the child watcher collect the killed shell so no zombie (or warning) is left behind.
    try:
        await asyncio.wait_for(_exit_of(process), TERM_GRACE)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        pass


def _close_pipes(process: asyncio.subprocess.Process) -> None:
    # Background jobs that outlive the shell keep the pipes open; stop reading them. Process has
    # no public close(); its transport's close() is stable since Python 3.4.
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


async def _drain(stream: asyncio.StreamReader | None, buffer: HeadTailBuffer[bytes]) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        buffer.write(chunk)
