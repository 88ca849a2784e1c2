"""The next turn's request, made ahead from a session read ahead.

A long session's first request after a restart passes every message of the history through the
request's passes once: its replay to the model (``transform_for_request``), the privacy gate and
litellm's shape. Each result is kept per message (``PerMessage``) and per list (``PrefixCache``),
so every later request pays only for what it added; the first one paid for all of it while the
user waited (20 000 messages: most of a second). The warm-up thread reads the session the next
turn most likely continues (``session/preload.py``) and then runs those passes over it
(``prepare_request``) with what a cell without options would use now: the configured model, the
data policy and the site's limits. The turn resumes where they stopped.

A guess that proves wrong (a ``%config`` since, ``-m`` another model) costs only the work: every
pass is keyed by what it depends on, so the turn recomputes what does not match.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jupyter_agent.features.settings import TurnSettings
    from jupyter_agent.messages import Message
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.model_resolution import ModelChoice


def next_turn_settings(
    magics: AgentMagics, session_model: str | None = None, probe_ollama: Callable[[], str | None] | None = None
) -> tuple[TurnSettings, ModelChoice]:
    """The settings and model of a cell without options run now, within the site policy.
    ``session_model``: the session's own model (``%agent model``); ``probe_ollama``: as
    ``choose_model``'s. Raises ``ValueError`` for an invalid environment variable the turn would
    fall back on, or a model the site does not allow."""
    from jupyter_agent.notebook.model_resolution import choose_model
    from jupyter_agent.notebook.site_limits import load_site_policy, site_model

    config = magics.current_config()
    policy = load_site_policy()
    settings = policy.apply(config.turn())
    chosen = choose_model(None, session_model, config.model, probe_ollama=probe_ollama, configured_by=config.set_by("model"))
    return settings, site_model(chosen, policy)


def prepare_request(magics: AgentMagics) -> Callable[[list[list[Message]]], None]:
    """What makes the next turn's request passes over each of the histories it most likely sends,
    for ``preload_session``; the settings are read when it is called (after the cells that ran
    since ``%load_ext``), once for all of them."""

    def prepare(histories: list[list[Message]]) -> None:
        from jupyter_agent.model import transform_for_request
        from jupyter_agent.notebook.model_resolution import needs_litellm, resolve
        from jupyter_agent.notebook.toolset import turn_privacy_gate

        histories = [history for history in histories if history]
        if not histories:
            return
        # No probe of a local Ollama server: a model that only a probe finds is not worth the wait.
        settings, choice = next_turn_settings(magics, probe_ollama=lambda: None)
        if choice.is_demo:
            return  # the offline demo answers without a request
        model = resolve(choice, api_base=settings.api_base or None).model
        gate = turn_privacy_gate(settings)
        for history in histories:
            gated = gate.messages(transform_for_request(history, model)[0])
            if needs_litellm(choice):  # a registered model's stream has its own shape
                from jupyter_agent.model.litellm_stream import prepare_history

                prepare_history(model, gated)

    return prepare


__all__ = ["next_turn_settings", "prepare_request"]
