"""Over a 20-turn notebook session, the provider's cache serves most input tokens (litellm over HTTP)."""

import pytest

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def litellm():
    from jupyter_agent.model.litellm_loader import litellm_module_sync

    return litellm_module_sync()


async def test_twenty_turns_read_at_least_80_percent_of_their_input_from_the_cache(litellm):
    from jupyter_agent.testing.cached_session import cached_session

    session = await cached_session(20)
    assert session.requests == 40
    assert session.provider_fraction >= 0.8
    # What the provider served is what the runs' usage reports: cached tokens read back through litellm.
    assert session.usage_fraction == pytest.approx(session.provider_fraction)


async def test_the_turn_context_in_the_system_prompt_would_break_the_cache_every_turn(litellm):
    from jupyter_agent.testing.cached_session import cached_session

    session = await cached_session(6, context_in_system=True)
    assert session.provider_fraction < 0.7
