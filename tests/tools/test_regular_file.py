"""Special files refused unopened, and atomic replacement: a kill mid-write, a size limit or a
full disk leaves the original intact."""

import math
import os
import random
import resource
import select
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jupyter_agent.files import current_umask
from jupyter_agent.testing.waiting import wait_until_blocking
from jupyter_agent.tools import Workspace
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.regular_file import read_regular, replace_atomically

# Runs read then write of a large content through the real tools, in a process the test can kill.
WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from jupyter_agent import AbortController, ToolCall
    from jupyter_agent.loop.execute_tool import execute_tool
    from jupyter_agent.tools import coding_tools

    workspace, size = sys.argv[1], int(sys.argv[2])
    tools = {tool.name: tool for tool in coding_tools(workspace)}

    async def main():
        signal = AbortController().signal
        await execute_tool(ToolCall(id="r", name="read", arguments={"path": "data.txt", "limit": 1}), tools, signal)
        content = "new line of text\\n" * (size // 17)
        print("ready", flush=True)
        result = await execute_tool(ToolCall(id="w", name="write", arguments={"path": "data.txt", "content": content}), tools, signal)
        print(("ERROR " if result.is_error else "OK ") + result.content[0].text, flush=True)

    asyncio.run(main())
    """
)
ORIGINAL = b"the original content\n" * 1000


def start_writer(workspace: Path, size: int, **options) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(workspace), str(size)], stdout=subprocess.PIPE, text=True, **options
    )


def read_line(process: subprocess.Popen, timeout: float = 60) -> str:
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, "the writer printed nothing"
    return process.stdout.readline().strip()


def write_has_begun(workspace: Path) -> bool:
    data = workspace / "data.txt"
    return len(os.listdir(workspace)) > 1 or data.stat().st_size != len(ORIGINAL)


def written(workspace: Path) -> float:
    """Bytes of the new content in the temporary file so far; infinite once it replaced the original."""
    for temporary in workspace.glob(".data.txt.*.tmp"):
        try:
            return temporary.stat().st_size
        except FileNotFoundError:  # renamed meanwhile
            break
    return math.inf if (workspace / "data.txt").stat().st_size != len(ORIGINAL) else 0


def kill_at(writer: subprocess.Popen, workspace: Path, point: float) -> None:
    """SIGKILL once the write has ``point`` bytes of the new content (or the writer ended)."""
    wait_until_blocking(lambda: write_has_begun(workspace) or writer.poll() is not None, 30, "the write to begin")
    wait_until_blocking(lambda: written(workspace) >= point or writer.poll() is not None, 30, "the point of the attack")
    writer.send_signal(signal.SIGKILL)


def test_sigkill_mid_write_leaves_the_original_intact(workspace):
    rng = random.Random(8)
    intact = 0
    for _ in range(20):
        (workspace / "data.txt").write_bytes(ORIGINAL)
        writer = start_writer(workspace, 40_000_000)
        assert read_line(writer) == "ready"
        # The attack: a kill at a random point of the write (past its end: while it is synced and renamed).
        kill_at(writer, workspace, rng.uniform(0, 1.2) * 40_000_000)
        writer.wait(30)
        writer.stdout.close()
        data = (workspace / "data.txt").read_bytes()
        intact += data == ORIGINAL or data == b"new line of text\n" * (40_000_000 // 17)
        for leftover in workspace.glob(".data.txt.*.tmp"):
            leftover.unlink()  # a killed writer cannot clean up; the original is what matters
    assert intact == 20


def test_a_size_limit_mid_write_leaves_the_original_and_says_why(workspace):
    (workspace / "data.txt").write_bytes(ORIGINAL)
    limit = 1_000_000

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    writer = start_writer(workspace, 5_000_000, preexec_fn=limit_file_size)
    assert read_line(writer) == "ready"
    outcome = read_line(writer)
    writer.wait(30)
    writer.stdout.close()
    assert outcome == "ERROR Cannot write data.txt: File too large (the original file is unchanged)."
    assert (workspace / "data.txt").read_bytes() == ORIGINAL
    assert os.listdir(workspace) == ["data.txt"]  # the temporary file was removed


@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount_point)], capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield mount_point
    subprocess.run(["umount", str(mount_point)], check=True)


def test_a_full_disk_leaves_the_original_and_says_why(small_disk):
    (small_disk / "data.txt").write_bytes(ORIGINAL)
    writer = start_writer(small_disk, 5_000_000)
    assert read_line(writer) == "ready"
    outcome = read_line(writer)
    writer.wait(30)
    writer.stdout.close()
    assert outcome == "ERROR Cannot write data.txt: No space left on device (the original file is unchanged)."
    assert (small_disk / "data.txt").read_bytes() == ORIGINAL
    assert os.listdir(small_disk) == ["data.txt"]


def test_replacing_keeps_mode_and_owner(tmp_path):
    target = tmp_path / "secret.env"
    target.write_bytes(b"KEY=1\n")
    target.chmod(0o600)
    if os.geteuid() == 0:
        os.chown(target, 1234, 5678)
    replace_atomically(Workspace(tmp_path), target, b"KEY=2\n", "secret.env")
    status = target.stat()
    assert target.read_bytes() == b"KEY=2\n"
    assert stat.S_IMODE(status.st_mode) == 0o600
    if os.geteuid() == 0:
        assert (status.st_uid, status.st_gid) == (1234, 5678)


def test_a_new_file_gets_the_umask_mode_not_the_temporary_files(tmp_path):
    replace_atomically(Workspace(tmp_path), tmp_path / "new.txt", b"x", "new.txt")
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~current_umask()


def test_a_link_keeps_pointing_at_the_replaced_file(tmp_path):
    (tmp_path / "real.txt").write_bytes(b"old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    replace_atomically(Workspace(tmp_path), tmp_path / "real.txt", b"new", "real.txt")
    assert (tmp_path / "link.txt").read_bytes() == b"new"


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(
        ToolError, match=r"^pipe is a FIFO \(named pipe\), not a regular file; edit works on regular files only\.$"
    ):
        read_regular(Workspace(tmp_path), tmp_path / "pipe", "pipe", "edit", 100)


def test_a_file_over_the_limit_is_refused_with_advice(tmp_path):
    (tmp_path / "big.bin").write_bytes(b"x" * 2000)
    with pytest.raises(ToolError, match=r"big\.bin is 2\.0 KB, over the 1000 B that edit changes in one piece\. Use bash"):
        read_regular(Workspace(tmp_path), tmp_path / "big.bin", "big.bin", "edit", 1000)
