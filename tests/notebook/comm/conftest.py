"""Fixtures of the comm tests; the fakes live in comm_fakes.py (imported by several modules)."""

from __future__ import annotations

import pathlib
import sys

import pytest
from comm.base_comm import CommManager

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from comm_fakes import RecordingHandler, record_turn  # noqa: E402

from jupyter_agent.session import SessionStore  # noqa: E402


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "analysis.agent"


@pytest.fixture
def session(folder):
    """Session ``main`` with two turns; the last ran ``y = 2`` and ``print(y)``."""
    store = SessionStore(folder / "main.jsonl")
    record_turn(store, "first", ["x = 1"])
    record_turn(store, "second", ["y = 2", "print(y)"])
    store.record_usage({"input_tokens": 10, "output_tokens": 5, "spend_usd": 0.25}, model="test-model", step=1)
    store.close()
    return folder / "main.jsonl"


@pytest.fixture
def handler(folder):
    return RecordingHandler(folder)


@pytest.fixture
def manager():
    return CommManager()
