import os

import anyio
import pytest

from jupyter_agent import AbortController
from jupyter_agent.loop import RunCancelled
from jupyter_agent.testing.waiting import wait_until
from jupyter_agent.tools import OutputCaps, grep_process

pytestmark = pytest.mark.anyio


async def test_matches_as_path_line_text(run, workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("import os\ndef main():\n    return os.getcwd()\n")
    (workspace / "b.txt").write_text("nothing here\n")
    text = await run.text("grep", pattern=r"os\.\w+")
    assert text == "src/a.py:3:     return os.getcwd()"


async def test_no_matches(run, workspace):
    (workspace / "a.txt").write_text("abc\n")
    assert await run.text("grep", pattern="zzz") == "No matches for 'zzz' in .."


async def test_skips_binaries_and_ignored_folders(run, workspace):
    (workspace / "bin.dat").write_bytes(b"needle\x00\x01")
    (workspace / "img.png").write_bytes(b"needle")
    for folder in (".git", "node_modules", "__pycache__"):
        (workspace / folder).mkdir()
        (workspace / folder / "x.txt").write_text("needle\n")
    (workspace / "keep.txt").write_text("needle\n")
    assert await run.text("grep", pattern="needle") == "keep.txt:1: needle"


async def test_glob_filter_by_name_and_by_path(run, workspace):
    (workspace / "a").mkdir()
    (workspace / "a" / "x.py").write_text("hit\n")
    (workspace / "a" / "x.md").write_text("hit\n")
    (workspace / "y.py").write_text("hit\n")
    assert await run.text("grep", pattern="hit", glob="*.py") == "a/x.py:1: hit\ny.py:1: hit"
    assert await run.text("grep", pattern="hit", glob="a/*.{md,txt}") == "a/x.md:1: hit"


async def test_one_file_and_case_insensitive(run, workspace):
    (workspace / "a.txt").write_text("Hello\nhello\n")
    assert await run.text("grep", pattern="(?i)HELLO", path="a.txt") == "a.txt:1: Hello\na.txt:2: hello"


async def test_per_file_and_total_caps(workspace, run_with):
    (workspace / "many.txt").write_text("hit\n" * 50)
    for index in range(10):
        (workspace / f"f{index}.txt").write_text("hit\n" * 3)
    run = run_with(caps=OutputCaps(grep_max_per_file=5, grep_max_matches=12))
    lines = (await run.text("grep", pattern="hit")).splitlines()
    assert lines[:3] == ["f0.txt:1: hit", "f0.txt:2: hit", "f0.txt:3: hit"]
    assert sum(1 for line in lines if ": hit" in line) == 12
    assert lines[-1].startswith("[Stopped after 12 matching lines")


async def test_per_file_cap_says_how_many_more(workspace, run_with):
    (workspace / "many.txt").write_text("hit\n" * 50)
    run = run_with(caps=OutputCaps(grep_max_per_file=5))
    lines = (await run.text("grep", pattern="hit")).splitlines()
    assert len(lines) == 6 and lines[-1] == "many.txt: … 45 more matching lines in this file (grep the file itself to see them)"


async def test_long_lines_are_clipped(run, workspace):
    (workspace / "min.js").write_text("var a=1;" * 1000 + "needle\n")
    text = await run.text("grep", pattern="var")
    assert len(text) < 400 and "more characters]" in text


async def test_invalid_regex_is_an_error_with_advice(run, workspace):
    assert "Invalid regular expression '('" in await run.error("grep", pattern="(")


async def test_cannot_escape_the_workspace(run, workspace, tmp_path):
    (tmp_path / "secret.txt").write_text("needle\n")
    assert "outside the workspace" in await run.error("grep", pattern="needle", path="../../")
    os.symlink(tmp_path / "secret.txt", workspace / "link.txt")
    os.symlink(tmp_path, workspace / "linkdir")
    assert await run.text("grep", pattern="needle") == "No matches for 'needle' in .."
    assert "symbolic link" in await run.error("grep", pattern="needle", path="linkdir")


async def test_symlinked_file_inside_is_searched(run, workspace):
    (workspace / "real.txt").write_text("needle\n")
    os.symlink(workspace / "real.txt", workspace / "alias.txt")
    assert await run.text("grep", pattern="needle") == "alias.txt:1: needle\nreal.txt:1: needle"


async def test_huge_files_are_skipped_with_a_note(workspace, run_with):
    (workspace / "big.log").write_text("needle\n" * 100)
    run = run_with(caps=OutputCaps(grep_max_file_bytes=100))
    text = await run.text("grep", pattern="needle")
    assert text.startswith("No matches") and "1 files over" in text


async def test_a_catastrophic_pattern_gives_up_on_that_file_with_a_note(run_with, workspace):
    run = run_with(caps=OutputCaps(grep_file_seconds=0.2))
    (workspace / "a_slow.txt").write_text("a" * 5000 + "!\n")
    (workspace / "b_fine.txt").write_text("aaa\n")
    text = await run.text("grep", pattern=r"(a+)+$")
    assert text.splitlines()[0] == "b_fine.txt:1: aaa"
    assert "took over 0.2 s on a_slow.txt" in text and "Simplify it" in text


async def test_python_re_syntax_is_kept(run, workspace):
    (workspace / "a.py").write_text("x = 1\nfoo_bar = 2\n")
    assert await run.text("grep", pattern=r"(?P<name>foo)_(?P=name)?bar\b") == "a.py:2: foo_bar = 2"


def busy_grep_worker():
    # A worker is idle in the pool or busy in a search; the busy one is not in the pool.
    import psutil

    workers = [child for child in psutil.Process().children() if "grep_process import serve" in " ".join(child.cmdline())]
    idle = {worker.pid for worker in grep_process._idle}
    return next((worker for worker in workers if worker.pid not in idle), None)


async def test_abort_kills_a_search_stuck_in_one_match(run, workspace):
    # This pattern on this line ignores the engine's own time limit: only killing the child ends it.
    (workspace / "stuck.txt").write_text("a" * 60 + "!\n")
    controller = AbortController()
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            results = []

            async def call():
                try:
                    await run("grep", abort=controller.signal, pattern=r"^(a|aa)+$")
                except RunCancelled:
                    results.append("cancelled")

            group.start_soon(call)
            worker = await wait_until(busy_grep_worker, 60, "a busy grep worker", every=0.01)
            controller.abort()
    assert results == ["cancelled"]
    worker.wait(10)  # killed: waiting returns (a live worker would raise TimeoutExpired)
