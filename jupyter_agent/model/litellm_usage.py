"""Token usage and cost of one response, from litellm's usage object.

litellm reports ``prompt_tokens`` including tokens read from and written to the prompt cache;
``Usage.input`` excludes both. Cost uses the model's own rates when it has any, otherwise
litellm's price map; an unpriced model costs 0. The cost a LiteLLM proxy reports in the usage (at
its own prices, margins and discounts) is what was billed: for ``litellm_proxy/…`` models it
replaces the estimate, split over input and output as the estimate was. Nothing here raises: usage is informative, and a
strange usage object must never fail a response that already arrived.
"""

from __future__ import annotations

import math

from jupyter_agent.messages import Cost, Usage
from jupyter_agent.model.catalog import litellm_name, price_rates
from jupyter_agent.model.types import Model, ModelCost

_PER_MILLION = 1_000_000
PROXY_PROVIDER = "litellm_proxy"


def _count(source: object, *names: str) -> int:
    for name in names:
        value = getattr(source, name, None)
        if isinstance(value, (int, float)) and value:
            return int(value)
    return 0


def usage_from_litellm(raw: object | None, model: Model) -> Usage:
    if raw is None:
        return Usage()
    try:
        details = getattr(raw, "prompt_tokens_details", None)
        cache_read = _count(details, "cached_tokens") or _count(raw, "cache_read_input_tokens")
        cache_write = _count(details, "cache_write_tokens", "cache_creation_tokens") or _count(raw, "cache_creation_input_tokens")
        prompt = _count(raw, "prompt_tokens")
        output = _count(raw, "completion_tokens")
        usage = Usage(
            input=max(0, prompt - cache_read - cache_write),
            output=output,
            cache_read=cache_read,
            cache_write=cache_write,
            total_tokens=_count(raw, "total_tokens") or prompt + output,
        )
    except Exception:  # noqa: BLE001 - see the module docstring
        return Usage()
    usage.cost = cost_of(usage, model)
    # litellm itself fills usage.cost from its price map for known models; only a proxy's is a bill.
    reported = reported_cost(raw) if model.provider == PROXY_PROVIDER else None
    if reported is not None:
        usage.cost = _billed(usage.cost, reported)
    return usage


def reported_cost(raw: object) -> float | None:
    """USD the server says the request cost (``usage.cost``), ``None`` when it says nothing."""
    value = getattr(raw, "cost", None)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def _billed(estimate: Cost, reported: float) -> Cost:
    if estimate.total <= 0:
        return Cost(total=reported)
    scale = reported / estimate.total
    return Cost(
        input=estimate.input * scale,
        output=estimate.output * scale,
        cache_read=estimate.cache_read * scale,
        cache_write=estimate.cache_write * scale,
        total=reported,
    )


def rates_for(model: Model) -> ModelCost | None:
    own = model.cost
    if own.input or own.output or own.cache_read or own.cache_write:
        return own
    try:
        return price_rates(litellm_name(model))
    except Exception:  # noqa: BLE001 - an unknown or unloadable price map means "unpriced"
        return None


def cost_of(usage: Usage, model: Model) -> Cost:
    rates = rates_for(model)
    if rates is None:
        return Cost()
    # A map without cache prices: charge cached tokens as input, an upper bound for budgets.
    cache_read_rate = rates.cache_read or rates.input
    cache_write_rate = rates.cache_write or rates.input
    cost = Cost(
        input=usage.input * rates.input / _PER_MILLION,
        output=usage.output * rates.output / _PER_MILLION,
        cache_read=usage.cache_read * cache_read_rate / _PER_MILLION,
        cache_write=usage.cache_write * cache_write_rate / _PER_MILLION,
    )
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost
