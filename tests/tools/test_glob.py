import os

import pytest

from jupyter_agent.tools import OutputCaps

pytestmark = pytest.mark.anyio


@pytest.fixture
def tree(workspace):
    for path in ["a.py", "b.md", "src/c.py", "src/deep/d.py", "src/deep/e.ts", ".hidden/h.py", "node_modules/m.py"]:
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text("x")
    (workspace / ".env").write_text("x")
    return workspace


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("*.py", ["a.py"]),
        ("**/*.py", ["a.py", "src/c.py", "src/deep/d.py"]),
        ("src/**/*.{py,ts}", ["src/c.py", "src/deep/d.py", "src/deep/e.ts"]),
        ("src/?.py", ["src/c.py"]),
        ("[ab].*", ["a.py", "b.md"]),
        ("src/*", ["src/c.py", "src/deep/"]),
        (".env", [".env"]),
        (".hidden/*.py", [".hidden/h.py"]),
    ],
)
async def test_patterns(run, tree, pattern, expected):
    assert (await run.text("glob", pattern=pattern)).splitlines() == expected


async def test_path_argument_and_results_relative_to_workspace(run, tree):
    assert (await run.text("glob", pattern="**/*.py", path="src")).splitlines() == ["src/c.py", "src/deep/d.py"]


async def test_no_match(run, tree):
    assert await run.text("glob", pattern="*.rs") == "No files match '*.rs' in .."


async def test_never_leads_out_of_the_workspace(run, tree, tmp_path):
    (tmp_path / "outside.py").write_text("x")
    os.symlink(tmp_path, tree / "out")
    assert "outside the workspace" in await run.error("glob", pattern="../*.py")
    assert "outside" in await run.error("glob", pattern="*.py", path="..")
    assert "absolute" in await run.error("glob", pattern="/etc/*")
    assert "outside.py" not in await run.text("glob", pattern="**/*.py")
    assert "symbolic link" in await run.error("glob", pattern="out/*.py")


async def test_result_cap(workspace, run_with):
    for index in range(20):
        (workspace / f"f{index:02}.txt").write_text("x")
    run = run_with(caps=OutputCaps(glob_max_results=5))
    lines = (await run.text("glob", pattern="*.txt")).splitlines()
    assert lines[:5] == [f"f{index:02}.txt" for index in range(5)]
    assert lines[5].startswith("[More than 5 matches")


async def test_path_must_be_a_folder(run, tree):
    assert "a.py is a file, not a folder" in await run.error("glob", pattern="*", path="a.py")
    assert "missing was not found" in await run.error("glob", pattern="*", path="missing")
