"""Which completions skip litellm: an ``openai/`` model at an OpenAI-compatible ``api_base`` only."""

from jupyter_agent.model import Model
from jupyter_agent.notebook.completion import openai_compatible


def test_an_openai_model_at_an_api_base_goes_direct():
    assert openai_compatible(Model(id="llama3", provider="openai"), "http://127.0.0.1:8000/v1")


def test_openais_own_endpoint_other_providers_and_custom_models_go_through_litellm():
    assert not openai_compatible(Model(id="gpt-4.1-mini", provider="openai"), None)
    assert not openai_compatible(Model(id="gpt-4.1-mini", provider="openai"), "https://api.openai.com/v1")
    assert not openai_compatible(Model(id="claude-haiku-4-5", provider="anthropic"), "http://127.0.0.1:8000")
    assert not openai_compatible(Model(id="mine", provider="openai", api="custom"), "http://127.0.0.1:8000")
