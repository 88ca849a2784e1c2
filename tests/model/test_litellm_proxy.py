"""Turns through a real LiteLLM proxy (``litellm_proxy/<alias>``, a virtual key, the proxy's URL).

The proxy runs litellm's own proxy server on 127.0.0.1 in front of the fake provider, without a
database: virtual keys come from its ``custom_auth`` hook and the proxy enforces their budgets
with its own checks and in-memory spend counters (see proxy_harness.py). What is checked: the
turn's spend is the cost the proxy reports, a key over its budget gives a clear message, and the
proxy attributes the request to the notebook's user, session and notebook.
"""

from __future__ import annotations

import pytest
from proxy_harness import ALIAS, INPUT_PRICE, OUTPUT_PRICE, LiteLLMProxy

from jupyter_agent.notebook.model_resolution import ModelChoice, resolve
from jupyter_agent.notebook.proxy_metadata import proxy_request_fields
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.fake_provider import FakeProvider, text, usage

# The first test also waits for the proxy to start (tens of seconds on a loaded machine).
pytestmark = [pytest.mark.anyio, pytest.mark.proxy, pytest.mark.timeout(360)]

pytest.importorskip("fastapi", reason="the LiteLLM proxy's dependencies are in the test extra")

TEAM_KEY = "sk-team-data"
# Less than two requests of 1000 + 100 tokens (0.0012 USD each): the second is refused.
SMALL_BUDGET = 0.002
KEYS = {
    TEAM_KEY: {"key_alias": "data-team-key", "team_id": "data-team"},
    "sk-small": {"key_alias": "small-key", "team_id": "data-team", "max_budget": SMALL_BUDGET},
}
PROMPT_TOKENS, COMPLETION_TOKENS = 1000, 100
BILLED = PROMPT_TOKENS * INPUT_PRICE + COMPLETION_TOKENS * OUTPUT_PRICE


@pytest.fixture(scope="module")
def upstream():
    with FakeProvider() as provider:
        yield provider


@pytest.fixture(scope="module")
def proxy(upstream, tmp_path_factory):
    server = LiteLLMProxy(tmp_path_factory.mktemp("litellm-proxy"), upstream.api_base, KEYS).start()
    try:
        yield server
    finally:
        server.stop()


async def _turn(proxy, key, env=None, prompt="How many rows?"):
    choice = ModelChoice(f"litellm_proxy/{ALIAS}", "environment")
    fields = proxy_request_fields(choice.name, "main", None, env or {"JUPYTERHUB_USER": "alice"})
    resolved = resolve(choice, api_key=key, api_base=proxy.url, request_fields=fields)
    run = run_agent(resolved.model, prompt, stream_fn=resolved.stream_fn)
    return await run.result()


async def test_a_turn_through_the_proxy_spends_what_the_proxy_billed(proxy, upstream):
    before = len(proxy.logged(0, timeout=0))
    upstream.queue(text("It has ", "42 rows.", usage=usage(PROMPT_TOKENS, COMPLETION_TOKENS)))
    result = await _turn(proxy, TEAM_KEY)
    assert result.reason == "completed", result.error
    assert result.text == "It has 42 rows."
    # The client knows no price for the alias: the spend is what the proxy reported.
    assert result.usage.spend_usd == pytest.approx(BILLED)
    logged = proxy.logged(before + 1)[-1]
    assert logged["response_cost"] == pytest.approx(BILLED)
    assert logged["model_group"] == ALIAS and logged["team_id"] == "data-team"


async def test_the_proxy_attributes_the_request_to_the_notebook_user_and_session(proxy, upstream, tmp_path):
    before = len(proxy.logged(0, timeout=0))
    upstream.queue(text("Done."))
    choice = ModelChoice(f"litellm_proxy/{ALIAS}", "environment")
    fields = proxy_request_fields(choice.name, "cleanup", tmp_path / "sales.ipynb", {"JUPYTERHUB_USER": "bob"})
    resolved = resolve(choice, api_key=TEAM_KEY, api_base=proxy.url, request_fields=fields)
    result = await run_agent(resolved.model, "clean it", stream_fn=resolved.stream_fn).result()
    assert result.reason == "completed", result.error
    logged = proxy.logged(before + 1)[-1]
    assert logged["end_user"] == "bob"
    assert {"jupyter-agent", "session:cleanup", "notebook:sales.ipynb"} <= set(logged["request_tags"])
    assert logged["requester_metadata"]["session"] == "cleanup"
    assert logged["requester_metadata"]["notebook"] == str(tmp_path / "sales.ipynb")


async def test_a_key_over_its_budget_gets_a_clear_message(proxy, upstream):
    upstream.queue(text("First.", usage=usage(PROMPT_TOKENS, COMPLETION_TOKENS)))
    upstream.queue(text("First.", usage=usage(PROMPT_TOKENS, COMPLETION_TOKENS)))
    first = await _turn(proxy, "sk-small")
    assert first.reason == "completed", first.error
    second = await _turn(proxy, "sk-small")
    third = await _turn(proxy, "sk-small")
    refused = second if second.reason == "error" else third  # the proxy's counter lands just after a response
    assert refused.reason == "error"
    # A key from custom auth is named by its hash (the proxy's words); its alias when the proxy has one.
    assert refused.error.startswith("litellm_proxy: key budget exceeded: your key (hash ")
    assert " has spent $" in refused.error
    assert f"of its ${SMALL_BUDGET} budget; the proxy refuses requests until its admin raises the budget" in refused.error


async def test_a_key_the_proxy_does_not_know_is_an_authentication_failure(proxy):
    result = await _turn(proxy, "sk-unknown")
    assert result.reason == "error"
    assert result.error == "litellm_proxy: authentication failed (401): Authentication Error, invalid virtual key"
