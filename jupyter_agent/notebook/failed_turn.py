"""A turn that fails fails its cell, where the cell waits for it (``AgentMagics.raise_on_error``).

A headless run (nbclient, papermill, ``nbconvert --execute``) records a cell's output and moves
on unless the cell raises, so a turn that ended in an error (the provider, the key, a budget or
spend cap, a stream timeout, a refusal of the whole turn) would leave a scheduled notebook green.
The cell raises ``AgentTurnFailed`` after the turn's output, like a failing code cell. A tool call
that was denied is not a failed turn: the model read the refusal and answered.

``auto`` raises in headless runs only, ``always`` in every cell that waits for its turn (it makes
cells wait, as ``--wait`` does; a cell with ``--no-wait`` has returned before its turn ends), and
``never`` never does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from jupyter_agent.errors import JupyterAgentError

if TYPE_CHECKING:
    from jupyter_agent.notebook.frontend import Mode
    from jupyter_agent.notebook.runner import Turn

RaiseOnError = Literal["auto", "always", "never"]
RAISE_ON_ERROR: tuple[RaiseOnError, ...] = get_args(RaiseOnError)
RAISE_ON_ERROR_HELP = (
    "A turn that ends in an error fails its cell, so nbconvert --execute and papermill stop: auto: in headless runs; "
    "always: in every cell (cells then wait for their turn); never."
)
# Stop reasons of a turn that did not do its work (a step limit is the user's chosen bound, and a
# stop is the user's wish: neither fails the cell).
_FAILED_REASONS = {
    "max_spend": "the turn stopped at its spend limit",
    "max_context": "the conversation no longer fits the model's context window",
}


class AgentTurnFailed(JupyterAgentError):
    """The turn of an ``%%agent`` cell ended in an error; the message says which."""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback of the magic's internals: the error is the turn's.
        return [f"AgentTurnFailed: {self}"]


def turn_failure(turn: Turn) -> str | None:
    """Why ``turn`` failed, or None when it did its work (or was stopped, or never started)."""
    from jupyter_agent.model.secrets import redact_secrets
    from jupyter_agent.notebook.runner import describe_error

    if turn.error is not None:
        return describe_error(turn.error)
    result = turn.result
    if result is None:
        return None
    if result.reason == "error":
        return redact_secrets(result.error or "the turn ended in an error")
    return _FAILED_REASONS.get(result.reason)


def raises(setting: str, mode: Mode) -> bool:
    """Whether a failed turn fails its (waiting) cell under ``setting`` in frontend ``mode``."""
    return setting == "always" or (setting == "auto" and mode == "static")


def waits(wait: bool, raise_on_error: str) -> bool:
    """Whether cells wait for their turn unless they say otherwise (``always`` needs them to, to fail)."""
    return wait or raise_on_error == "always"


def fail_cell(turn: Turn, setting: str, mode: Mode) -> None:
    """Raises ``AgentTurnFailed`` when ``turn`` failed and ``setting`` says its cell fails."""
    failure = turn_failure(turn)
    if failure is not None and raises(setting, mode):
        raise AgentTurnFailed(f"the agent turn of session {turn.session.name!r} failed: {failure}")


__all__ = [
    "AgentTurnFailed",
    "RAISE_ON_ERROR",
    "RAISE_ON_ERROR_HELP",
    "RaiseOnError",
    "fail_cell",
    "raises",
    "turn_failure",
    "waits",
]
