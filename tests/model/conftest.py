"""Fixtures for the litellm adapter tests: litellm imported once per session, a fake provider."""

import pathlib
import sys

import pytest

from jupyter_agent import Model
from jupyter_agent.testing.fake_provider import FakeProvider

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # proxy_harness, for the LiteLLM proxy tests


@pytest.fixture(scope="session")
def litellm():
    """The litellm module; importing it costs seconds, so once per test session."""
    from jupyter_agent.model.litellm_loader import litellm_module_sync

    return litellm_module_sync()


@pytest.fixture
def fake_provider(litellm):
    """A running fake OpenAI-compatible provider on 127.0.0.1 (stopped after the test)."""
    with FakeProvider() as provider:
        yield provider


@pytest.fixture
def fake_model(fake_provider):
    """A model served by the fake provider; litellm reaches it as ``openai/fake-model``."""
    return Model(id="fake-model", provider="openai", base_url=fake_provider.api_base)
