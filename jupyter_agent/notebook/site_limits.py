"""The site policy's say in the notebook: the model a turn may use, and what ``%agent config`` shows of it.

A turn's settings are limited by ``SitePolicy.apply`` (``session/site_policy.py``)."""

from __future__ import annotations

from jupyter_agent.notebook.model_resolution import CHOSEN_BY, ModelChoice
from jupyter_agent.session.site_policy import (
    SITE_CONFIG_ENV,
    SitePolicy,
    SitePolicyError,
    load_site_policy,
    policy_notes,
    site_config_path,
)

# Choices nobody made: the site's default model comes before them.
_FALLBACK_SOURCES = frozenset({"ollama", "default"})


def site_model(choice: ModelChoice, policy: SitePolicy) -> ModelChoice:
    """The site's default model when the user chose none; ``ValueError`` for a model it does not allow."""
    if policy.default_model and (choice.source in _FALLBACK_SOURCES or choice.source.endswith("_API_KEY")):
        return ModelChoice(policy.default_model, "site policy")
    problem = policy.model_problem(choice.name)
    if problem is not None:
        raise ValueError(f"{problem} (chosen by {CHOSEN_BY.get(choice.source, choice.source)})")
    return choice


def site_policy_line() -> str:
    """What ``%agent config`` says about the site policy in force."""
    try:
        policy = load_site_policy()
    except SitePolicyError as error:
        return f"  site policy: {error} (every turn is refused until it is fixed)" + _notes(policy_notes())
    if not policy.active:
        where = site_config_path()
        shown = f"{where} does not exist" if where is not None else f"{SITE_CONFIG_ENV} was empty when the kernel started"
        return f"  site policy: none ({shown})" + _notes(policy.notes)
    limits = []
    if policy.allowed_models:
        limits.append("models " + ", ".join(policy.allowed_models))
    if policy.default_model:
        limits.append(f"default model {policy.default_model}")
    if policy.api_base:
        limits.append(f"gateway {policy.api_base}")
    if policy.data_ceiling:
        limits.append(f"data policy at most {policy.data_ceiling}")
    if policy.permission_ceiling:
        limits.append(f"permissions at most {policy.permission_ceiling}")
    if policy.max_spend is not None:
        limits.append(f"max_spend at most {policy.max_spend} USD")
    if policy.mcp_allowed is not None:
        limits.append("MCP servers " + (", ".join(rule.name for rule in policy.mcp_allowed) or "none"))
    return f"  site policy: {policy.source} ({'; '.join(limits) or 'no limits'})" + _notes(policy.notes)


def _notes(notes: tuple[str, ...]) -> str:
    return "".join(f"\n    {note}" for note in notes)


__all__ = ["load_site_policy", "site_model", "site_policy_line"]
