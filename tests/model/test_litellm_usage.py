"""``usage_from_litellm``: token counts (input excludes cache reads and writes) and cost."""

import pytest

from jupyter_agent import Model, ModelCost, Usage
from jupyter_agent.model.catalog import price_rates
from jupyter_agent.model.litellm_usage import cost_of, usage_from_litellm

UNPRICED = Model(id="my-local-model", provider="openai")


@pytest.fixture
def raw_usage(litellm):
    from litellm.types.utils import Usage as LitellmUsage

    return LitellmUsage


def test_openai_cached_tokens_are_split_out_of_the_prompt(raw_usage):
    raw = raw_usage(prompt_tokens=1000, completion_tokens=50, total_tokens=1050, prompt_tokens_details={"cached_tokens": 600})
    usage = usage_from_litellm(raw, UNPRICED)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (400, 50, 600, 0, 1050)


def test_anthropic_style_cache_reads_and_writes(raw_usage):
    # litellm reports Anthropic's prompt_tokens as input + cache read + cache write.
    raw = raw_usage(
        prompt_tokens=1300, completion_tokens=10, total_tokens=1310, cache_read_input_tokens=1000, cache_creation_input_tokens=200
    )
    usage = usage_from_litellm(raw, UNPRICED)
    assert (usage.input, usage.cache_read, usage.cache_write) == (100, 1000, 200)


def test_no_usage_and_strange_usage_give_zeros_never_an_exception():
    assert usage_from_litellm(None, UNPRICED) == Usage()

    class Weird:
        prompt_tokens = "many"

        @property
        def completion_tokens(self):
            raise RuntimeError("broken provider object")

    assert usage_from_litellm(Weird(), UNPRICED) == Usage()


def test_total_tokens_fall_back_to_the_sum(raw_usage):
    raw = raw_usage(prompt_tokens=7, completion_tokens=3)
    assert usage_from_litellm(raw, UNPRICED).total_tokens == 10


def test_cost_from_the_price_map(litellm):
    rates = price_rates("anthropic/claude-sonnet-4-5")
    assert rates is not None and rates.cache_read and rates.cache_write
    usage = Usage(input=1000, output=100, cache_read=2000, cache_write=300)
    cost = cost_of(usage, Model(id="claude-sonnet-4-5", provider="anthropic"))
    assert cost.input == pytest.approx(1000 * rates.input / 1e6)
    assert cost.cache_read == pytest.approx(2000 * rates.cache_read / 1e6)
    assert cost.cache_write == pytest.approx(300 * rates.cache_write / 1e6)
    assert cost.total == pytest.approx(cost.input + cost.output + cost.cache_read + cost.cache_write)


def test_an_unpriced_model_costs_nothing(litellm):
    assert cost_of(Usage(input=10**6, output=10**6), UNPRICED).total == 0.0


def test_own_rates_win_and_missing_cache_rates_charge_the_input_rate():
    model = Model(id="gpt-4o-mini", cost=ModelCost(input=2.0, output=8.0))
    cost = cost_of(Usage(input=10**6, output=10**6, cache_read=10**6, cache_write=10**6), model)
    assert (cost.input, cost.output, cost.cache_read, cost.cache_write, cost.total) == (2.0, 8.0, 2.0, 2.0, 14.0)


def test_a_cost_the_server_reports_replaces_the_estimate(raw_usage):
    # A LiteLLM proxy reports what it billed (its own prices, margins, discounts) as usage.cost.
    raw = raw_usage(prompt_tokens=1000, completion_tokens=500, total_tokens=1500)
    raw.cost = 0.25
    priced = Model(id="team-model", provider="litellm_proxy", cost=ModelCost(input=1.0, output=3.0))
    usage = usage_from_litellm(raw, priced)
    assert usage.cost.total == 0.25
    # Split as the estimate was (0.001 input, 0.0015 output of 0.0025).
    assert usage.cost.input == pytest.approx(0.1) and usage.cost.output == pytest.approx(0.15)
    unpriced = usage_from_litellm(raw, Model(id="team-model", provider="litellm_proxy"))
    assert (unpriced.cost.total, unpriced.cost.input, unpriced.cost.output) == (0.25, 0.0, 0.0)
    # Elsewhere usage.cost is litellm's own estimate: the model's rates still win.
    assert (
        usage_from_litellm(raw, Model(id="priced", provider="openai", cost=ModelCost(input=1.0, output=3.0))).cost.total == 0.0025
    )


@pytest.mark.parametrize("value", [None, "0.1", float("nan"), -1.0, True])
def test_a_strange_reported_cost_keeps_the_estimate(raw_usage, value):
    raw = raw_usage(prompt_tokens=1_000_000, completion_tokens=0, total_tokens=1_000_000)
    raw.cost = value
    usage = usage_from_litellm(raw, Model(id="priced", provider="litellm_proxy", cost=ModelCost(input=2.0, output=0.0)))
    assert usage.cost.total == 2.0
