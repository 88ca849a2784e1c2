"""``describe_error``: litellm's exceptions -> "<provider>: <cause> (<status>): <detail>".

HTTP errors, dropped and malformed streams and refused connections are covered end to end in
test_litellm_stream.py; these are the cases a local server cannot produce easily.
"""

import json

import pytest

from jupyter_agent.model.litellm_errors import describe_error, exception_chain


def test_a_mid_stream_wrapper_is_described_by_the_error_it_wraps(litellm):
    limited = litellm.RateLimitError(
        message="litellm.RateLimitError: AnthropicException - Overloaded", llm_provider="anthropic", model="claude"
    )
    from litellm.exceptions import MidStreamFallbackError

    wrapper = MidStreamFallbackError(
        message="stream failed", model="claude", llm_provider="anthropic", original_exception=limited
    )
    assert describe_error(wrapper, "anthropic", mid_stream=True) == "anthropic: rate limited (429): Overloaded"


def test_a_json_error_body_is_reduced_to_the_providers_message(litellm):
    body = '{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}'
    error = litellm.AuthenticationError(
        message=f"litellm.AuthenticationError: AnthropicException - {body}", llm_provider="anthropic", model="claude"
    )
    assert describe_error(error, "anthropic") == "anthropic: authentication failed (401): invalid x-api-key"


def test_timeouts(litellm):
    timeout = litellm.Timeout(message="Request timed out after 600 s", model="m", llm_provider="openai")
    assert describe_error(timeout, "openai").startswith("openai: request timed out: ")


def test_a_connection_error_before_the_response_is_a_failed_connection(litellm):
    error = litellm.APIConnectionError(
        message="APIConnectionError: OpenAIException - Connection error.", llm_provider="openai", model="m"
    )
    error.__cause__ = ConnectionRefusedError(111, "Connect call failed")
    assert describe_error(error, "openai") == "openai: connection failed: [Errno 111] Connect call failed"
    assert describe_error(error, "openai", mid_stream=True).startswith("openai: connection lost mid-stream: ")


def test_a_json_error_anywhere_in_the_chain_is_a_malformed_chunk():
    try:
        json.loads("{bad")
    except ValueError as decode_error:
        wrapped = RuntimeError("wrapper")
        wrapped.__context__ = decode_error
    assert describe_error(wrapped, "x").startswith("x: malformed response chunk: Expecting property name")


def test_unknown_failures_name_their_type_and_long_details_are_clipped():
    message = describe_error(ValueError("line one\n" + "y" * 1000), "openai")
    assert message.startswith("openai: unexpected error (ValueError): line one yyy")
    assert len(message) < 400 and message.endswith("…")


def test_a_missing_provider_still_reads_well():
    assert describe_error(KeyError("k"), "") == "provider: unexpected error (KeyError): 'k'"


def test_exception_chain_stops_at_cycles():
    first, second = ValueError("a"), ValueError("b")
    first.__cause__, second.__cause__ = second, first
    assert exception_chain(first) == [first, second]


@pytest.mark.parametrize(
    "status, cause", [(403, "permission denied"), (404, "model or endpoint not found"), (503, "service unavailable")]
)
def test_more_http_statuses(litellm, status, cause):
    import httpx

    classes = {403: litellm.PermissionDeniedError, 404: litellm.NotFoundError, 503: litellm.ServiceUnavailableError}
    response = httpx.Response(status, request=httpx.Request("POST", "http://127.0.0.1/v1"))
    error = classes[status](message="litellm.X: OpenAIException - nope", llm_provider="openai", model="m", response=response)
    assert describe_error(error, "openai") == f"openai: {cause} ({status}): nope"


def test_no_api_key_names_the_variable_and_the_hosts_setting():
    from jupyter_agent.model import litellm_errors

    assert litellm_errors.no_api_key("openai", ["OPENAI_API_KEY"]) == (
        "no API key for openai: set OPENAI_API_KEY or pass api_key in the StreamOptions"
    )
    litellm_errors.set_api_key_hint("%config AgentMagics.api_key")
    try:
        assert litellm_errors.no_api_key("openai", ["OPENAI_API_KEY"]) == (
            "no API key for openai: set OPENAI_API_KEY or %config AgentMagics.api_key"
        )
    finally:
        litellm_errors.set_api_key_hint("pass api_key in the StreamOptions")
