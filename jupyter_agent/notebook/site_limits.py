"""The site policy applied to one turn's settings: user choices within the administrator's limits."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

from jupyter_agent.notebook.model_resolution import CHOSEN_BY, ModelChoice
from jupyter_agent.session.site_policy import SitePolicy, load_site_policy

if TYPE_CHECKING:
    from jupyter_agent.notebook.config import AgentConfig
    from jupyter_agent.runtime.permissions import PermissionMode
    from jupyter_agent.tools.data_policy import DataPolicyName

# Choices nobody made: the site's default model comes before them.
_FALLBACK_SOURCES = frozenset({"ollama", "default"})


def limit_config(config: AgentConfig, policy: SitePolicy) -> AgentConfig:
    """The data policy lowered to its ceiling, the gateway as base URL, the spend capped."""
    if not policy.active:
        return config
    return replace(
        config,
        data_policy=cast("DataPolicyName", policy.data_policy(config.data_policy)),
        api_base=policy.api_base or config.api_base,
        max_spend=policy.spend(config.max_spend),
    )


def limit_permissions(mode: PermissionMode, policy: SitePolicy) -> PermissionMode:
    return cast("PermissionMode", policy.permissions(mode))


def site_model(choice: ModelChoice, policy: SitePolicy) -> ModelChoice:
    """The site's default model when the user chose none; ``ValueError`` for a model it does not allow."""
    if policy.default_model and (choice.source in _FALLBACK_SOURCES or choice.source.endswith("_API_KEY")):
        return ModelChoice(policy.default_model, "site policy")
    problem = policy.model_problem(choice.name)
    if problem is not None:
        raise ValueError(f"{problem} (chosen by {CHOSEN_BY.get(choice.source, choice.source)})")
    return choice


__all__ = ["limit_config", "limit_permissions", "load_site_policy", "site_model"]
