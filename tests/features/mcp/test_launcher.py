"""The stdio server's launcher: its log capped and rotated, everything the server started ended with it."""

import os
import signal
import subprocess
import sys
import uuid

import pytest

from jupyter_agent.features.mcp.launcher import LOG_MAX_BYTES
from jupyter_agent.features.mcp.transport import LAUNCHER
from jupyter_agent.testing.processes import kill_marked, marked, sleeper
from jupyter_agent.testing.waiting import wait_until_blocking


@pytest.fixture
def marker():
    value = f"launcher-{uuid.uuid4().hex[:12]}"
    yield value
    kill_marked(value)


def with_children(marker):
    """A 'server' that starts a plain child and a setsid child, then waits (or exits, with ``then``)."""
    return f"{sleeper(f'{marker}-plain')} & setsid {sleeper(f'{marker}-setsid')} > /dev/null 2>&1 < /dev/null & "


def launch(command, *options, parent=None):
    return subprocess.Popen(
        [
            sys.executable,
            "-S",
            "-I",
            str(LAUNCHER),
            "--parent",
            str(parent or os.getpid()),
            *options,
            "--",
            "bash",
            "-c",
            command,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )


def test_the_log_is_capped_and_the_previous_part_kept(tmp_path):
    log = tmp_path / "mcp-flood.log"
    process = launch("head -c 5000 /dev/zero | tr '\\0' x >&2; echo last line >&2", "--log", str(log), "--log-max", "1000")
    assert process.wait(30) == 0
    sizes = sorted(path.stat().st_size for path in tmp_path.iterdir())
    assert [path.name for path in sorted(tmp_path.iterdir())] == ["mcp-flood.log", "mcp-flood.log.1"]
    assert max(sizes) <= 1000 + 200  # the cap, and the note that starts a new file
    assert log.read_text().rstrip().endswith("last line")
    assert "log continued: the previous 1000 bytes are in mcp-flood.log.1" in log.read_text()
    assert LOG_MAX_BYTES == 10 * 1024 * 1024
    process.stdin.close()
    process.stdout.close()


def test_a_command_that_cannot_run_says_so_in_the_log(tmp_path):
    log = tmp_path / "mcp-x.log"
    process = subprocess.Popen(
        [sys.executable, "-S", "-I", str(LAUNCHER), "--log", str(log), "--", "no-such-server-xyz"], start_new_session=True
    )
    assert process.wait(30) == 127
    assert "cannot run 'no-such-server-xyz': No such file or directory" in log.read_text()


@pytest.mark.parametrize("how", ["the server exits", "SIGTERM", "the kernel dies"])
def test_every_process_the_server_started_ends_with_it(marker, how):
    command = with_children(marker) + ("sleep 0.5" if how == "the server exits" else f"exec {sleeper(f'{marker}-server')}")
    if how == "the kernel dies":
        # A stand-in kernel starts the launcher and is killed with SIGKILL: no hook of it runs.
        kernel = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import subprocess, sys, time\n"
                f"subprocess.Popen([sys.executable, '-S', '-I', {str(LAUNCHER)!r}, '--parent', str(__import__('os').getpid()),"
                f" '--', 'bash', '-c', {command!r}], stdin=subprocess.PIPE, start_new_session=True)\n"
                "time.sleep(600)",
            ]
        )
        wait_until_blocking(lambda: len(marked(marker)) >= 3, 20, "3 launched processes", every=0.02)
        kernel.kill()
        kernel.wait(10)
    else:
        process = launch(command)
        wait_until_blocking(lambda: len(marked(marker)) >= 2, 20, "2 launched processes", every=0.02)
        if how == "SIGTERM":
            os.killpg(process.pid, signal.SIGTERM)  # as the SDK's shutdown and the kernel's kill do
        process.wait(30)
        process.stdin.close()
        process.stdout.close()
    wait_until_blocking(lambda: not marked(marker), 20, "the launched processes to end", every=0.02)


def test_a_kill_that_cannot_wait_for_the_launcher_still_ends_what_left_the_group(marker):
    # On a loaded machine the launcher may not end its children within the kernel's grace: the
    # kernel's SIGKILL of the group then must not leave the setsid child (outside the group) alive.
    from jupyter_agent.features.mcp.process import kill_group

    process = launch(with_children(marker) + f"exec {sleeper(f'{marker}-server')}")
    wait_until_blocking(lambda: len(marked(marker)) >= 3, 20, "3 launched processes", every=0.02)
    kill_group(process.pid, grace=0.0)  # no time at all for the launcher's own SIGTERM handling
    process.wait(30)
    process.stdin.close()
    process.stdout.close()
    wait_until_blocking(lambda: not marked(marker), 10, "the launched processes to end", every=0.02)
