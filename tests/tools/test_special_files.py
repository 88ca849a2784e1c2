"""FIFOs and device nodes in the workspace: every file tool refuses or skips them without blocking.

Each call runs under a bound: before the fix a FIFO blocked open() forever and /dev/zero's twin
was read until the memory ran out.
"""

import os
import stat

import anyio
import pytest

pytestmark = pytest.mark.anyio

BOUND = 20  # seconds; each call takes milliseconds when it does not block


@pytest.fixture
def fifo(workspace):
    os.mkfifo(workspace / "pipe")
    return "pipe"


@pytest.fixture
def zero_device(workspace):
    if os.geteuid() != 0:
        pytest.skip("creating a device node (mknod) needs root")
    os.mknod(workspace / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))  # the same device as /dev/zero
    return "zero"


async def bounded(run, tool, **arguments):
    with anyio.fail_after(BOUND):
        return await run(tool, **arguments)


@pytest.mark.parametrize("name", ["fifo", "zero_device"])
async def test_read_refuses_a_special_file(run, request, name):
    special = request.getfixturevalue(name)
    result = await bounded(run, "read", path=special)
    kind = "a FIFO (named pipe)" if name == "fifo" else "a character device"
    assert result.is_error
    assert result.content[0].text == f"{special} is {kind}, not a regular file; read works on regular files only."


@pytest.mark.parametrize("name", ["fifo", "zero_device"])
async def test_write_and_edit_refuse_a_special_file(run, request, name):
    special = request.getfixturevalue(name)
    written = await bounded(run, "write", path=special, content="x")
    edited = await bounded(run, "edit", path=special, old_text="a", new_text="b")
    assert written.is_error and "not a regular file; write works on regular files only." in written.content[0].text
    assert edited.is_error and "not a regular file; edit works on regular files only." in edited.content[0].text


async def test_grep_and_glob_walk_past_special_files(run, workspace, fifo, zero_device):
    (workspace / "a.txt").write_text("needle\n")
    result = await bounded(run, "grep", pattern="needle")
    assert result.content[0].text == "a.txt:1: needle"
    glob = await bounded(run, "glob", pattern="*")
    assert glob.content[0].text == "a.txt"


async def test_grep_on_a_special_file_is_refused(run, fifo):
    result = await bounded(run, "grep", pattern="x", path=fifo)
    assert result.is_error
    assert result.content[0].text == "pipe is a FIFO (named pipe), not a regular file; grep works on regular files only."


async def test_a_listing_still_shows_them(run, fifo):
    assert "pipe" in (await bounded(run, "list")).content[0].text
