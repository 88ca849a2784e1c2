"""Static checks run with the suite, so CI's one command runs them: ruff (lint, format, no sleeping in
tests) and mypy.

Their configuration is in pyproject.toml: mypy is strict on the core (messages, model, loop,
runtime) and checks the rest with its defaults.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# A cold mypy run (a fresh clone has no cache) takes minutes of wall time on a loaded machine.
pytestmark = pytest.mark.timeout(900)


def check(*command: str) -> None:
    done = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


def test_ruff_finds_no_lint():
    check("ruff", "check", ".")


def test_the_code_is_formatted():
    check("ruff", "format", "--check", ".")


def test_mypy_finds_no_type_errors():
    check("mypy")


SLEEPS = {
    "import time\ntime.sleep(0.1)\n": "time.sleep",
    "import asyncio\nasync def f():\n    await asyncio.sleep(0)\n": "asyncio.sleep",
    "from time import sleep\nsleep(1)\n": "time.sleep",
    "import anyio\nasync def f():\n    await anyio.sleep(0.5)\n": "anyio.sleep",
}


def lint(source: str, filename: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "--stdin-filename", filename, "-"],
        cwd=ROOT,
        input=source,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout


@pytest.mark.parametrize("source", SLEEPS, ids=SLEEPS.values())
def test_a_test_that_sleeps_fails_the_lint_and_other_code_may(source):
    assert f"TID251 `{SLEEPS[source]}` is banned: wait on the condition" in lint(source, "tests/tools/test_example.py")
    assert "TID251" not in lint(source, "jupyter_agent/testing/example.py")


def test_waiting_on_a_condition_passes_the_lint():
    source = "from jupyter_agent.testing.waiting import wait_until\nasync def f(done):\n    await wait_until(done)\n"
    assert "TID251" not in lint(source, "tests/tools/test_example.py")
