"""Rates, request costs and the spend rail."""

import pytest

from jupyter_agent import Cost, Model, ModelCost, Usage
from jupyter_agent.runtime import Rates, RunUsage, run_agent
from jupyter_agent.runtime.spend import RATES_INVALID, request_cost, request_input_tokens
from jupyter_agent.testing.scripted import ScriptedResponse, call, reply, tool_calls

pytestmark = pytest.mark.anyio


def test_rates_price_tokens_per_million_with_cache_aware_defaults():
    rates = Rates(input=3, output=15)
    usage = Usage(input=1_000_000, output=1_000_000, cache_read=1_000_000, cache_write=1_000_000)
    assert rates.cost(usage) == pytest.approx(3 + 15 + 0.3 + 3.75)
    explicit = Rates(input=3, output=15, cache_read=1, cache_write=2)
    assert explicit.cost(usage) == pytest.approx(3 + 15 + 1 + 2)


@pytest.mark.parametrize(
    "bad",
    [
        dict(input=-1, output=1),
        dict(input=1, output=float("nan")),
        dict(input=1, output=1, cache_read=-0.5),
        dict(input=True, output=1),
    ],
)
def test_rates_refuse_negative_or_non_numbers(bad):
    with pytest.raises(ValueError, match=RATES_INVALID):
        Rates(**bad)


def test_request_cost_prefers_rates_then_reported_cost_then_model_prices():
    model = Model(id="m", cost=ModelCost(input=2, output=10))
    reported = Usage(input=1_000_000, output=0, cost=Cost(total=7.0))
    assert request_cost(reported, Rates(input=1, output=1), model) == pytest.approx(1.0)
    assert request_cost(reported, None, model) == pytest.approx(7.0)
    unreported = Usage(input=1_000_000, output=100_000, cache_read=1_000_000)
    assert request_cost(unreported, None, model) == pytest.approx(2 + 1 + 0.2)


def test_request_input_tokens_include_the_cached_prefix():
    assert request_input_tokens(Usage(input=10, cache_read=990, cache_write=5)) == 1005


def test_run_usage_charges_and_copies():
    total = RunUsage()
    total.charge(Usage(input=5, output=2, cache_read=3, cache_write=1), 0.5)
    snapshot = total.copy()
    total.charge(Usage(input=5), 0.25)
    assert snapshot == RunUsage(5, 2, 3, 1, 0.5, 0)
    assert (total.input_tokens, total.spend_usd) == (10, 0.75)


# Million-token requests need a window that holds them.
HUGE_WINDOW = 10**9


def priced_step(kit, input=1_000_000, output=1_000_000, cache_read=0):
    return ScriptedResponse(content=tool_calls(call("echo")).content, usage=kit.usage(input, output, cache_read))


def test_run_usage_adds_another_runs_totals_but_keeps_its_own_request_size():
    mine = RunUsage(100, 10, 5, 1, 0.5, 900)
    mine.add(RunUsage(20, 2, 3, 4, 0.25, 7_000))
    assert mine == RunUsage(120, 12, 8, 5, 0.75, 900)


async def test_eighteen_dollars_a_step_with_a_forty_dollar_ceiling_takes_exactly_two_steps(scripted, kit):
    # 1M input at $3 + 1M output at $15 = $18 a step.
    scripted.queue(*[priced_step(kit) for _ in range(5)])
    result = await run_agent(
        scripted.model(context_window=HUGE_WINDOW),
        "task",
        tools=[kit.make_tool()],
        stream_fn=scripted,
        max_spend_usd=40,
        rates=Rates(input=3, output=15),
    ).result()
    assert (result.reason, result.steps) == ("max_spend", 2)
    assert result.usage.spend_usd == pytest.approx(36)


async def test_cached_tokens_are_cheaper_so_the_same_budget_buys_more_steps(scripted, kit):
    async def steps_for(cache_read):
        scripted.responses.clear()
        fresh = 1_000_000 - cache_read
        scripted.queue(*[priced_step(kit, input=fresh, output=10_000, cache_read=cache_read) for _ in range(40)])
        result = await run_agent(
            scripted.model(context_window=HUGE_WINDOW),
            "task",
            tools=[kit.make_tool()],
            stream_fn=scripted,
            max_spend_usd=3,
            rates=Rates(input=3, output=15),
        ).result()
        assert result.reason == "max_spend"
        return result

    uncached = await steps_for(0)
    cached = await steps_for(900_000)
    assert cached.steps > 2 * uncached.steps
    assert cached.usage.cache_read_tokens == 900_000 * cached.steps
    assert cached.usage.spend_usd <= 3


async def test_without_rates_the_reported_cost_is_charged(scripted, kit):
    scripted.queue(*[ScriptedResponse(content=tool_calls(call("echo")).content, usage=kit.usage(cost=4.0)) for _ in range(5)])
    result = await run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, max_spend_usd=10).result()
    assert (result.reason, result.steps, result.usage.spend_usd) == ("max_spend", 2, pytest.approx(8.0))


async def test_without_a_ceiling_spend_is_only_reported(scripted, kit):
    scripted.queue(priced_step(kit), reply("done", usage=kit.usage(1_000_000, 0)))
    result = await run_agent(
        scripted.model(context_window=HUGE_WINDOW),
        "task",
        tools=[kit.make_tool()],
        stream_fn=scripted,
        rates=Rates(input=3, output=15),
    ).result()
    assert (result.reason, result.usage.spend_usd) == ("completed", pytest.approx(21))


async def test_rates_may_be_given_as_a_mapping(scripted, kit):
    scripted.queue(reply("done", usage=kit.usage(1_000_000, 0)))
    result = await run_agent(
        scripted.model(context_window=HUGE_WINDOW), "task", stream_fn=scripted, rates={"input": 2, "output": 1}
    ).result()
    assert result.usage.spend_usd == pytest.approx(2)


def test_one_usage_total_adds_runs_and_records_and_says_what_came_since():
    from jupyter_agent.session import SessionUsage
    from jupyter_agent.session.records import UsageRecord

    run = RunUsage(input_tokens=10, output_tokens=5, cache_read_tokens=3, spend_usd=0.5, last_request_input_tokens=13)
    earlier = run.copy()
    run.add(RunUsage(input_tokens=1, output_tokens=2, cache_write_tokens=4, spend_usd=0.25, last_request_input_tokens=99))
    assert run.last_request_input_tokens == 13  # a sub-agent's requests are not this run's latest
    assert run.since(earlier) == RunUsage(input_tokens=1, output_tokens=2, cache_write_tokens=4, spend_usd=0.25)
    assert run.total_tokens == 25
    session = SessionUsage()
    session.count(UsageRecord(id="u1", input_tokens=7, output_tokens=1, spend_usd=0.1))
    session.count(UsageRecord(id="u2", input_tokens=2, purpose="memory", spend_usd=0.05))
    assert (session.total_tokens, session.steps, session.cost_usd) == (10, 1, pytest.approx(0.15))
