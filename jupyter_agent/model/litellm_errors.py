"""Provider failures as one readable line: ``"<provider>: <cause> (<status>): <provider's words>"``.

litellm wraps provider errors in its own exception classes (and mid-stream failures once more,
in ``MidStreamFallbackError``); the cause is read from the class names along the exception
chain, so this module needs no litellm import. A provider's words never carry a key: some echo
the one they refused.
"""

from __future__ import annotations

import json
import re

from jupyter_agent.model.litellm_budget import budget_refusal
from jupyter_agent.model.secrets import redact_secrets

# Most specific first: ContextWindowExceededError is also a BadRequestError.
_HTTP_CAUSES = (
    ("ContextWindowExceededError", "context window exceeded"),
    ("ContentPolicyViolationError", "blocked by content policy"),
    ("AuthenticationError", "authentication failed"),
    ("PermissionDeniedError", "permission denied"),
    ("NotFoundError", "model or endpoint not found"),
    ("RateLimitError", "rate limited"),
    ("PaymentRequiredError", "payment required"),
    ("UnprocessableEntityError", "bad request"),
    ("BadRequestError", "bad request"),
    ("ServiceUnavailableError", "service unavailable"),
    ("BadGatewayError", "bad gateway"),
    ("InternalServerError", "server error"),
)
_CONNECTION_CLASSES = frozenset(
    {
        "APIConnectionError",
        "ConnectError",
        "ReadError",
        "RemoteProtocolError",
        "ClientPayloadError",
        "ConnectionError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "ClientConnectorError",
        "ServerDisconnectedError",
    }
)
_TIMEOUT_CLASSES = frozenset({"Timeout", "APITimeoutError", "TimeoutException", "ReadTimeout", "TimeoutError"})
_WRAPPER_MODULES = ("litellm", "openai")
# "litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached" -> "Rate limit reached"
_LITELLM_PREFIX = re.compile(r"^(?:\s*(?:litellm\.\w+:|\w+(?:Error|Exception):|\w+Exception -))+\s*")
_DETAIL_LIMIT = 300  # provider error bodies can be whole HTML pages
# How a caller gives a key, named in "no API key" errors; a host with its own setting names it
# (the notebook: "%config AgentMagics.api_key").
_api_key_hint = "pass api_key in the StreamOptions"
_MENTIONS_KEY = re.compile(r"api[_ ]?key|credentials", re.IGNORECASE)


def set_api_key_hint(hint: str) -> None:
    global _api_key_hint
    _api_key_hint = hint


def no_api_key(provider: str, variables: list[str]) -> str:
    return f"no API key for {provider}: set {' or '.join(variables)} or {_api_key_hint}"


def missing_api_keys(litellm: object, model_name: str) -> list[str]:
    """The API-key variables litellm wants for ``model_name`` and cannot find (base URLs and
    cloud credentials are not keys; they fail with their own words)."""
    try:
        found = litellm.validate_environment(model=model_name)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an unknown provider has no key to name
        return []
    missing = found.get("missing_keys", []) if isinstance(found, dict) else []
    return [name for name in missing if isinstance(name, str) and name.endswith("_API_KEY")]


def is_missing_key_failure(error: BaseException) -> bool:
    """A failure a missing key explains: authentication refused, or the SDK asking for a key."""
    chain = exception_chain(error)
    names = {cls.__name__ for item in chain for cls in type(item).__mro__}
    return "AuthenticationError" in names or any(_MENTIONS_KEY.search(str(item)) for item in chain)


def exception_chain(error: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = getattr(current, "original_exception", None) or current.__cause__ or current.__context__
    return chain


def describe_error(error: BaseException, provider: str, *, mid_stream: bool = False) -> str:
    """The ``error_message`` of a failed response: which provider, what went wrong, its words."""
    chain = exception_chain(error)
    names = [{cls.__name__ for cls in type(item).__mro__} for item in chain]
    malformed = next((item for item in chain if isinstance(item, json.JSONDecodeError)), None)
    if malformed is not None:
        return _format(provider, "malformed response chunk", None, _clip(str(malformed)))
    if any(n & _TIMEOUT_CLASSES for n in names):
        return _format(provider, "request timed out", None, _root_detail(chain))
    connection = any(n & _CONNECTION_CLASSES for n in names)
    budget = next((found for item in chain if (found := budget_refusal(_detail(item)))), None)
    if budget is not None:
        return f"{provider or 'provider'}: {budget}"
    if not connection:
        for item, item_names in zip(chain, names):
            if "MidStreamFallbackError" in item_names:
                continue  # a wrapper: the wrapped error names the cause
            for class_name, cause in _HTTP_CAUSES:
                if class_name in item_names:
                    return _format(provider, cause, getattr(item, "status_code", None), _detail(item))
    if connection:
        cause = "connection lost mid-stream" if mid_stream else "connection failed"
        return _format(provider, cause, None, _root_detail(chain))
    status = getattr(error, "status_code", None)
    return _format(provider, f"unexpected error ({type(error).__name__})", status, _detail(error))


def _format(provider: str, cause: str, status: object, detail: str) -> str:
    head = f"{provider or 'provider'}: {cause}"
    if isinstance(status, int):
        head += f" ({status})"
    return f"{head}: {detail}" if detail else head


def _detail(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error)
    return _clip(_provider_words(_LITELLM_PREFIX.sub("", str(message))))


def _provider_words(text: str) -> str:
    """The message inside a provider's JSON error body (Anthropic's arrive raw), else the text."""
    try:
        body = json.loads(text)
    except ValueError:
        return text
    inner = body.get("error", body) if isinstance(body, dict) else None
    message = inner.get("message") if isinstance(inner, dict) else None
    return message if isinstance(message, str) and message else text


def _root_detail(chain: list[BaseException]) -> str:
    """The words of the first exception below litellm's and openai's wrappers (the real cause)."""
    for item in chain:
        if not type(item).__module__.startswith(_WRAPPER_MODULES) and str(item):
            return _clip(str(item))
    return _detail(chain[-1])


def _clip(text: str) -> str:
    # Redacted before clipping: a key cut in half would no longer be recognised.
    line = redact_secrets(" ".join(text.split()))
    return line if len(line) <= _DETAIL_LIMIT else line[: _DETAIL_LIMIT - 1] + "…"
