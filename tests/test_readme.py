"""The README's commands and snippets work as written."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from jupyter_agent.testing.fake_provider import FakeProvider, rejected_key, text

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.MULTILINE | re.DOTALL)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def blocks(body: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", body, re.MULTILINE | re.DOTALL)


def test_the_library_snippet_runs_as_a_plain_script(tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(blocks(section("As a library"), "python")[0])
    (tmp_path / "README.md").write_text("# A project\n")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    with FakeProvider() as provider:
        provider.queue(text("A short ", "summary."))
        # litellm sends "openai/..." models to OPENAI_API_BASE: here the fake provider on 127.0.0.1.
        env.update(OPENAI_API_KEY="sk-test", OPENAI_API_BASE=provider.api_base, PYTHONPATH=str(ROOT))
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("A short summary.\ncompleted: 1 steps, $")


def test_the_library_snippet_says_why_a_run_failed(tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(blocks(section("As a library"), "python")[0])
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    with FakeProvider() as provider:
        provider.queue(rejected_key())
        env.update(OPENAI_API_KEY="sk-wrong", OPENAI_API_BASE=provider.api_base, PYTHONPATH=str(ROOT))
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("error: ") and lines[1].startswith("openai: authentication failed (401): Incorrect API key")


def test_the_readme_says_what_an_editable_install_does_with_node():
    """It builds the extension: minutes, ~450 MB of node_modules, and pip silent about it without -v."""
    quick_start = " ".join(section("Quick start").split())
    for words in ("with Node.js on `PATH` also builds the extension", "a few minutes", "about 450 MB of `node_modules`"):
        assert words in quick_start, words
    assert "pip prints nothing meanwhile unless you add `-v`" in quick_start


def test_no_link_leaves_the_repository():
    for target in re.findall(r"\]\(([^)]+)\)|`(\.\./[^`]*)`", README):
        link = next(part for part in target if part)
        assert not link.startswith(".."), link
        if not re.match(r"[a-z]+://", link):
            assert (ROOT / link.split("#")[0]).exists(), link
    assert "../" not in README


def test_ci_runs_exactly_the_readme_test_commands():
    commands = blocks(section("Tests"), "bash")[0].strip().splitlines()
    assert commands == ['pip install -e ".[test]"', "python -m pytest"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "readme_commands Tests" in ci  # .ci/run executes the block itself, not a copy of it
