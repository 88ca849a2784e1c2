"""The site policy applied to one turn's settings: user choices within the administrator's limits."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

from jupyter_agent.notebook.model_resolution import CHOSEN_BY, ModelChoice
from jupyter_agent.session.site_policy import SITE_CONFIG_ENV, SitePolicy, SitePolicyError, load_site_policy, site_config_path

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


def site_policy_line() -> str:
    """What ``%agent config`` says about the site policy in force."""
    try:
        policy = load_site_policy()
    except SitePolicyError as error:
        return f"  site policy: {error} (every turn is refused until it is fixed)"
    if not policy.active:
        return f"  site policy: none ({site_config_path() or SITE_CONFIG_ENV + ' is empty'} does not exist)"
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
    return f"  site policy: {policy.source} ({'; '.join(limits) or 'no limits'})"


__all__ = ["limit_config", "limit_permissions", "load_site_policy", "site_model", "site_policy_line"]
