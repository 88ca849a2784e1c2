from types import SimpleNamespace

import pytest

from jupyter_agent.notebook.failed_turn import AgentTurnFailed, fail_cell, raises, turn_failure


def turn(reason=None, error=None, run_error=None):
    result = SimpleNamespace(reason=reason, error=run_error) if reason else None
    return SimpleNamespace(error=error, result=result, session=SimpleNamespace(name="main"))


def test_which_turns_failed():
    assert turn_failure(turn("error", run_error="AuthenticationError: invalid key sk-4fG9aQ2xLm81ZpQr7TtY0w")) == (
        "AuthenticationError: invalid key [redacted:sk-token]"
    )
    assert turn_failure(turn("max_spend")) == "the turn stopped at its spend limit"
    assert turn_failure(turn("max_context")) == "the conversation no longer fits the model's context window"
    assert turn_failure(turn(error=RuntimeError("no model"))) == "RuntimeError: no model"
    for fine in ("completed", "max_steps", "aborted"):
        assert turn_failure(turn(fine)) is None
    assert turn_failure(turn()) is None  # stopped before it started


def test_auto_fails_headless_cells_only():
    assert raises("auto", "static") and not raises("auto", "panel") and not raises("auto", "terminal")
    assert raises("always", "panel") and not raises("never", "static")


def test_a_failed_turn_raises_a_short_error():
    with pytest.raises(AgentTurnFailed) as caught:
        fail_cell(turn("max_spend"), "auto", "static")
    assert str(caught.value) == "the agent turn of session 'main' failed: the turn stopped at its spend limit"
    assert caught.value._render_traceback_() == [f"AgentTurnFailed: {caught.value}"]
    fail_cell(turn("max_spend"), "never", "static")  # no exception
