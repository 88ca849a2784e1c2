"""Over a 20-turn notebook session with the plan in use and memory on, the provider's cache serves
most input tokens (litellm over HTTP)."""

import pytest

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def litellm():
    from jupyter_agent.model.litellm_loader import litellm_module_sync

    return litellm_module_sync()


async def test_twenty_turns_read_at_least_80_percent_of_their_input_from_the_cache(litellm):
    from jupyter_agent.testing.cached_session import STEPS_PER_TURN, cached_session

    session = await cached_session(20)
    assert session.requests == 20 * (STEPS_PER_TURN + 1)  # each turn's steps, then its memory extraction
    assert session.provider_fraction >= 0.8
    # Three plan changes a turn and a note saved every fourth: still one system prompt for all.
    assert session.system_prompts == 1
    # What the provider served is what the runs' usage reports: cached tokens read back through litellm.
    assert session.usage_fraction == pytest.approx(session.provider_fraction)


async def test_the_plan_and_memory_index_in_the_system_prompt_would_break_the_cache_at_every_change(litellm):
    from jupyter_agent.testing.cached_session import cached_session

    session = await cached_session(6, step_context_in_system=True)
    assert session.provider_fraction < 0.7 and session.system_prompts > 6


async def test_the_turn_context_in_the_system_prompt_would_break_the_cache_every_turn(litellm):
    from jupyter_agent.testing.cached_session import cached_session

    session = await cached_session(6, turn_context_in_system=True)
    assert session.provider_fraction < 0.7
