import pytest


@pytest.fixture
def anyio_backend():
    # The kernel runs asyncio; the agent is written for it.
    return "asyncio"
