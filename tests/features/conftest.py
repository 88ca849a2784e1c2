"""Shared fixtures of the feature tests: a session file in a temp folder and stand-in run events."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jupyter_agent.messages import TextContent


@pytest.fixture
def session_file(tmp_path):
    return tmp_path / "analysis.agent" / "main.jsonl"


# Fields the real event classes default (runtime/events.py), so a fake needs only what it tests.
_DEFAULTS = {"tool_result": {"details": None}}


def event(type_: str, **fields) -> SimpleNamespace:
    return SimpleNamespace(type=type_, **{**_DEFAULTS.get(type_, {}), **fields})


@pytest.fixture
def kit() -> SimpleNamespace:
    """Stand-ins for run events and their text payloads, as the views receive them."""
    return SimpleNamespace(event=event, text=lambda text: TextContent(text=text))
