"""``get_model(name, **overrides)``: a ``Model`` described by litellm's model information.

Context window, output limit, prices, vision and reasoning support come from litellm's bundled
price map. Unknown and local models (``ollama/...``, an OpenAI-compatible server behind
``base_url``) get the conservative ``Model`` defaults plus the caller's overrides; looking a
model up never raises for an unknown name; ``unknown_model`` says whether litellm can route it.
"""

from __future__ import annotations

import contextlib
import difflib
import io
from functools import lru_cache
from typing import Any

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.model.litellm_loader import litellm_module_sync
from jupyter_agent.model.types import Model, ModelCost

_PER_MILLION = 1_000_000


def litellm_name(model: Model) -> str:
    """The name litellm routes by: ``provider/id`` unless the id already carries the provider."""
    if not model.provider or model.id.startswith(f"{model.provider}/"):
        return model.id
    return f"{model.provider}/{model.id}"


def split_name(name: str) -> tuple[str, str]:
    """``"provider/model"`` -> (provider, model); a bare name asks litellm which provider serves it."""
    if "/" in name:
        provider, model_id = name.split("/", 1)
        return provider, model_id
    try:
        _, provider, _, _ = litellm_module_sync().get_llm_provider(name)
    except Exception:  # noqa: BLE001 - litellm raises for names it cannot place
        provider = ""
    # A bare unknown name is most likely served by an OpenAI-compatible endpoint.
    return provider or "openai", name


def unknown_model(name: str, *, api_base: str | None = None) -> str | None:
    """Why litellm cannot route ``name`` (an unknown provider, or a bare name it cannot place),
    or ``None`` when it can. A bare name with an ``api_base`` goes to that OpenAI-compatible server."""
    litellm = litellm_module_sync()
    if "/" in name:
        provider = name.split("/", 1)[0]
        known = {str(getattr(item, "value", item)) for item in litellm.provider_list}
        if provider in known:
            return None
        close = difflib.get_close_matches(provider, sorted(known), n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        return f"unknown model {name!r}: litellm has no provider {provider!r}{hint}; see https://docs.litellm.ai/docs/providers"
    if api_base:
        return None
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # litellm prints a banner when it fails
            litellm.get_llm_provider(name)
    except Exception:  # noqa: BLE001 - litellm raises for names it cannot place
        return (
            f"unknown model {name!r}: litellm cannot tell its provider; write it as provider/model "
            f"(e.g. openai/{name} or ollama_chat/{name})"
        )
    return None


def get_model(name: str, **overrides: Any) -> Model:
    """A fresh ``Model`` for ``name``; ``overrides`` (any ``Model`` field) win over looked-up values."""
    unknown = sorted(set(overrides) - set(Model.model_fields))
    if unknown:
        raise ValueError(f"Unknown Model field(s): {', '.join(unknown)}")
    provider, model_id = split_name(name)
    fields: dict[str, Any] = {"id": model_id, "provider": provider, **model_facts(f"{provider}/{model_id}")}
    fields.update(overrides)
    return Model(**fields)


class _UnmappedModel(LookupError, JupyterAgentError):
    pass


def _lookup(name: str) -> tuple[tuple[str, Any], ...]:
    try:
        return _mapped_facts(name)
    except _UnmappedModel:
        return ()  # the defaults; looked up again next time (the lru_cache keeps no exception)


# Why an unmapped name is not cached: ``litellm.register_model`` may map it later (a custom
# model's window, registered in a cell after ``%load_ext``, whose warm-up may have looked it up).
@lru_cache(maxsize=512)
def _mapped_facts(name: str) -> tuple[tuple[str, Any], ...]:
    # A tuple of pairs: cached values must be immutable, every caller gets its own Model.
    try:
        info = litellm_module_sync().get_model_info(name)
    except Exception:  # noqa: BLE001 - unmapped models raise; they get the defaults
        raise _UnmappedModel(name) from None
    facts: dict[str, Any] = {}
    if info.get("max_input_tokens"):
        facts["context_window"] = int(info["max_input_tokens"])
    max_output = info.get("max_output_tokens") or info.get("max_tokens")
    if max_output:
        facts["max_tokens"] = int(max_output)
    if info.get("supports_vision"):
        facts["input"] = ("text", "image")
    if info.get("supports_reasoning"):
        facts["reasoning"] = True
    rates = tuple(
        float(info.get(key) or 0.0) * _PER_MILLION
        for key in (
            "input_cost_per_token",
            "output_cost_per_token",
            "cache_read_input_token_cost",
            "cache_creation_input_token_cost",
        )
    )
    if any(rates):
        facts["cost"] = rates
    return tuple(facts.items())


def model_facts(name: str) -> dict[str, Any]:
    """What litellm knows about ``provider/model`` as ``Model`` fields; {} for unknown models."""
    facts = dict(_lookup(name))
    if "input" in facts:
        facts["input"] = list(facts["input"])
    if "cost" in facts:
        facts["cost"] = model_cost(facts["cost"])
    return facts


def model_cost(rates: tuple[float, float, float, float]) -> ModelCost:
    return ModelCost(input=rates[0], output=rates[1], cache_read=rates[2], cache_write=rates[3])


def price_rates(name: str) -> ModelCost | None:
    """USD per million tokens from litellm's price map, or None for an unpriced model."""
    rates = dict(_lookup(name)).get("cost")
    return model_cost(rates) if rates else None
