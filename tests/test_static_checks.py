"""Static checks run with the suite, so CI's one command runs them: ruff (lint, format) and mypy.

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
