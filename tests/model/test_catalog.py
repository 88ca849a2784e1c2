"""``get_model``: models from litellm's model information; unknown ones get defaults, never errors."""

import pytest

from jupyter_agent import Model, ModelCost
from jupyter_agent.model import catalog
from jupyter_agent.model.catalog import get_model, litellm_name, price_rates, split_name

DEFAULTS = Model(id="x")


def test_a_known_model_gets_its_limits_prices_and_capabilities(litellm):
    info = litellm.get_model_info("openai/gpt-4o-mini")
    model = get_model("openai/gpt-4o-mini")
    assert (model.provider, model.id, model.name, model.api) == ("openai", "gpt-4o-mini", "gpt-4o-mini", "litellm")
    assert model.context_window == info["max_input_tokens"]
    assert model.max_tokens == info["max_output_tokens"]
    assert model.cost.input == pytest.approx(info["input_cost_per_token"] * 1e6)
    assert model.cost.output == pytest.approx(info["output_cost_per_token"] * 1e6)
    assert model.input == ["text", "image"]
    assert model.reasoning is False


def test_reasoning_and_cache_prices(litellm):
    model = get_model("anthropic/claude-sonnet-4-5")
    assert model.reasoning is True
    assert model.cost.cache_read > 0 and model.cost.cache_write > 0


def test_a_bare_name_asks_litellm_for_its_provider(litellm):
    assert split_name("gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert get_model("gpt-4o-mini").provider == "openai"


def test_the_first_slash_separates_the_provider():
    assert split_name("openrouter/anthropic/claude-x") == ("openrouter", "anthropic/claude-x")


@pytest.mark.parametrize(
    "name, provider, model_id",
    [
        ("openai/my-finetune-on-a-local-server", "openai", "my-finetune-on-a-local-server"),
        ("hosted_vllm/some/model", "hosted_vllm", "some/model"),
        ("totally-unknown-model-name", "openai", "totally-unknown-model-name"),
    ],
)
def test_unknown_models_get_the_conservative_defaults(litellm, name, provider, model_id):
    model = get_model(name)
    assert (model.provider, model.id) == (provider, model_id)
    assert (model.context_window, model.max_tokens, model.input, model.reasoning, model.cost) == (
        DEFAULTS.context_window,
        DEFAULTS.max_tokens,
        DEFAULTS.input,
        DEFAULTS.reasoning,
        DEFAULTS.cost,
    )
    assert price_rates(litellm_name(model)) is None


def test_a_local_ollama_model_from_the_map_is_free(litellm):
    model = get_model("ollama/llama3")
    assert model.provider == "ollama" and model.context_window == 8192
    assert model.cost == ModelCost()


def test_overrides_win_over_looked_up_values(litellm):
    model = get_model("openai/gpt-4o-mini", context_window=1000, base_url="http://127.0.0.1:1/v1", cost={"input": 9.0})
    assert (model.context_window, model.base_url, model.cost.input, model.cost.output) == (
        1000,
        "http://127.0.0.1:1/v1",
        9.0,
        0.0,
    )


def test_an_unknown_override_is_the_callers_error():
    with pytest.raises(ValueError, match=r"^Unknown Model field\(s\): colour, size$"):
        get_model("openai/gpt-4o-mini", size=1, colour="red")


def test_each_call_returns_a_fresh_model_and_lookups_are_cached(litellm, monkeypatch):
    first = get_model("openai/gpt-4o-mini")
    first.input.append("text")
    first.cost.input = 123.0
    calls = []
    monkeypatch.setattr(litellm, "get_model_info", lambda name: calls.append(name) or {})
    second = get_model("openai/gpt-4o-mini")
    assert second.input == ["text", "image"] and second.cost.input != 123.0
    assert calls == []  # answered from the cache


def test_a_failing_lookup_gives_defaults(litellm, monkeypatch):
    def explode(name):
        raise RuntimeError("price map unavailable")

    monkeypatch.setattr(litellm, "get_model_info", explode)
    catalog._mapped_facts.cache_clear()
    try:
        assert get_model("openai/gpt-4o").context_window == DEFAULTS.context_window
    finally:
        catalog._mapped_facts.cache_clear()


def test_a_model_registered_after_its_first_lookup_gets_its_registered_facts(litellm):
    # The kernel's warm-up may look the configured model up before a cell registers its window.
    name = "openai/registered-after-lookup-model"
    assert get_model(name).context_window == DEFAULTS.context_window
    litellm.register_model({name: {"max_input_tokens": 1_048_576, "litellm_provider": "openai", "mode": "chat"}})
    try:
        assert get_model(name).context_window == 1_048_576
    finally:
        litellm.model_cost.pop(name, None)
        catalog._mapped_facts.cache_clear()


@pytest.mark.parametrize(
    "model, name",
    [
        (Model(id="gpt-4o"), "openai/gpt-4o"),
        (Model(id="ollama/llama3", provider="ollama"), "ollama/llama3"),
        (Model(id="llama3", provider=""), "llama3"),
    ],
)
def test_litellm_name(model, name):
    assert litellm_name(model) == name


@pytest.mark.parametrize("name", ["openai/gpt-4.1-mini", "ollama_chat/llama3.2", "anthropic/anything-new", "gpt-4.1-mini"])
def test_names_litellm_can_route_are_known(litellm, name):
    assert catalog.unknown_model(name) is None


def test_an_unknown_provider_or_a_bare_unplaced_name_is_said(litellm, capsys):
    assert catalog.unknown_model("nonexistent/model") == (
        "unknown model 'nonexistent/model': litellm has no provider 'nonexistent'; see https://docs.litellm.ai/docs/providers"
    )
    assert "did you mean openai" in catalog.unknown_model("opena/gpt-4o")
    assert catalog.unknown_model("llama3") == (
        "unknown model 'llama3': litellm cannot tell its provider; write it as provider/model "
        "(e.g. openai/llama3 or ollama_chat/llama3)"
    )
    assert catalog.unknown_model("llama3", api_base="http://127.0.0.1:8000/v1") is None  # that server's name
    assert capsys.readouterr().out == ""  # litellm's banner is not printed
