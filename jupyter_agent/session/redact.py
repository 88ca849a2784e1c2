"""Secrets never reach the session file.

Every line is redacted just before it is written (a ``Redactor``, see ``jupyter_agent.model.secrets``): every key
the product was given, the values of environment variables whose names look secret, credentials in
``*_URL`` values, ``sk-…``/``Bearer …``-shaped tokens, and any secret handed to ``add`` (an
``api_key`` from the request options) become ``[redacted:NAME]`` wherever they occur, message content
included. Request options lose ``api_key``, headers and secret-looking keys before they are
recorded at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jupyter_agent.model.secrets import MIN_SECRET_LENGTH, SECRET_NAME, Redactor

# Option keys that carry credentials even though their names do not end like a secret.
SECRET_OPTION_KEYS = frozenset(
    {"api_key", "key", "token", "secret", "authorization", "headers", "extra_headers", "cookie", "cookies"}
)


def looks_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name)) or name.lower() in SECRET_OPTION_KEYS


def scrub_options(options: Any, redactor: Redactor | None = None) -> dict[str, Any]:
    """Request options without credentials; each removed secret is registered with ``redactor``."""
    if options is None:
        return {}
    if hasattr(options, "model_dump"):
        options = options.model_dump(mode="json", exclude_none=True)
    if not isinstance(options, Mapping):
        raise TypeError(f"request options must be a mapping or a pydantic model, not {type(options).__name__}")
    return _scrub(options, redactor)


def _scrub(mapping: Mapping, redactor: Redactor | None) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    for key, value in mapping.items():
        key = str(key)
        if looks_secret(key):
            _register(key, value, redactor)
        else:
            clean[key] = _plain(value, redactor)
    return clean


def _register(name: str, value: Any, redactor: Redactor | None) -> None:
    if redactor is None:
        return
    if isinstance(value, str):
        redactor.add(name, value)
        # "Bearer sk-…": the token alone can show up elsewhere too.
        scheme, _, token = value.partition(" ")
        if token and scheme.lower() in ("bearer", "basic", "token"):
            redactor.add(name, token)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _register(str(key), item, redactor)


def _plain(value: Any, redactor: Redactor | None) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return _scrub(value, redactor)
    if isinstance(value, (list, tuple)):
        return [_plain(item, redactor) for item in value]
    return repr(value)


__all__ = ["MIN_SECRET_LENGTH", "looks_secret", "scrub_options"]
