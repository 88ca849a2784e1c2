"""A LiteLLM proxy's budget refusals (its exact words, from litellm's auth checks) as clear messages."""

import pytest

from jupyter_agent.model.litellm_budget import ADVICE, budget_refusal
from jupyter_agent.model.litellm_errors import describe_error


@pytest.mark.parametrize(
    "words, expected",
    [
        (
            "Budget has been exceeded! Team=data-team Current cost: 12.5, Max budget: 10.0",
            "team budget exceeded: team data-team has spent $12.5 of its $10 budget",
        ),
        (
            "Budget has been exceeded! Key=alice-key Current cost: 0.032806, Max budget: 3e-05",
            "key budget exceeded: key alice-key has spent $0.032806 of its $0.00003 budget",
        ),
        (
            "Budget has been exceeded! Key=" + "ab" * 32 + " Current cost: 2, Max budget: 1",
            "key budget exceeded: your key (hash abababab…) has spent $2 of its $1 budget",
        ),
        (
            "Budget has been exceeded! User=u1 in Team=t1 Current cost: 2, Max budget: 1",
            "team member budget exceeded: user u1 in team t1 has spent $2 of a $1 budget",
        ),
        (
            "ExceededBudget: End User=bob over budget. Spend=3.2, Budget=3",
            "end user budget exceeded: end user bob has spent $3.2 of its $3 budget",
        ),
        (
            "Budget has been exceeded! Current cost: 5, Max budget: 4",
            "proxy budget exceeded: the proxy has spent $5 of its $4 budget",
        ),
        (
            "LiteLLM Team: t9, exceeded budget for model=gpt-4o",
            "team budget exceeded for model gpt-4o: team t9 has spent its budget for it",
        ),
    ],
)
def test_each_budget_the_proxy_enforces_is_named(words, expected):
    assert budget_refusal(f"litellm.BadRequestError: Litellm_proxyException - {words}") == f"{expected}; {ADVICE}"


def test_other_words_are_no_budget_refusal():
    assert budget_refusal("Rate limit reached for requests") is None


class BadRequestError(Exception):
    status_code = 422


def test_describe_error_puts_the_budget_first():
    error = BadRequestError("Litellm_proxyException - Budget has been exceeded! Team=t Current cost: 2, Max budget: 1")
    assert (
        describe_error(error, "litellm_proxy")
        == f"litellm_proxy: team budget exceeded: team t has spent $2 of its $1 budget; {ADVICE}"
    )
