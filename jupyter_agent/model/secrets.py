"""Credentials the product was given, and their removal from any text it writes or shows.

Every key reaches this module: ``remember_secret`` is called for each API key a request carries
(``StreamOptions.api_key``, so ``%config AgentMagics.api_key`` and ``JUPYTER_AGENT_API_KEY`` too) and
for any other credential a feature is handed (e.g. an MCP server's env or headers). Environment
variables whose names look secret (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``) are read
afresh each time, and so are the passwords inside ``*_URL`` values (``postgres://user:pass@host``).

``redact_secrets`` replaces each known value with ``[redacted:NAME]`` (also a prefix of it that line
clipping left before an ellipsis or at the end), then anything shaped like a credential: ``sk-…``
keys, ``Bearer …`` tokens and the password of a URL. Ordinary text is left alone: a shape needs a
long run of random-looking characters, and short values are settings, not secrets.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Mapping
from urllib.parse import unquote

SECRET_NAME = re.compile(r"(_KEY|_TOKEN|_SECRET)$|PASSWORD", re.IGNORECASE)
URL_NAME = re.compile(r"_(URL|URI|DSN)$", re.IGNORECASE)
# Shorter values ("1", "true", "dev") are settings, not credentials, and replacing them
# everywhere would turn ordinary text into noise.
MIN_SECRET_LENGTH = 6
# A clipped line may end inside a key: its first characters identify the key's owner.
MIN_CLIPPED_PREFIX = 6
_ELLIPSES = ("…", "...")

# The literal comes first so the engine scans for it (a leading lookbehind made this 500× slower).
_SK_TOKEN = re.compile(r"sk-(?<![\w-]sk-)[A-Za-z0-9_-]{20,}")
_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]{12,})")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]+:)([^\s/@]+)(@)")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{16,}")

_given: dict[str, str] = {}  # value -> name
_given_lock = threading.Lock()


def looks_secret(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def remember_secret(name: str, value: object) -> None:
    """Registers a credential the product was given; from now on it is redacted everywhere."""
    if not isinstance(value, str) or len(value.strip()) < MIN_SECRET_LENGTH:
        return
    with _given_lock:
        _given[value.strip()] = name
    scheme, _, token = value.strip().partition(" ")
    if token and scheme.lower() in ("bearer", "basic", "token"):
        remember_secret(name, token)  # "Bearer sk-…": the token alone can show up elsewhere too


def known_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """value -> name of every secret known now: the environment's, then those remembered."""
    environ = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for name, value in environ.items():
        if len(value) >= MIN_SECRET_LENGTH and SECRET_NAME.search(name):
            found[value] = name
        elif URL_NAME.search(name):
            for password in _URL_CREDENTIALS.findall(value):
                secret = unquote(password[1])
                if len(secret) >= MIN_SECRET_LENGTH:
                    found[secret] = name
                    found[password[1]] = name
    with _given_lock:
        found.update(_given)
    return found


def redact_secrets(text: str, secrets: Mapping[str, str] | None = None) -> str:
    """``text`` without any known secret (``secrets``: value -> name; default ``known_secrets()``)
    or credential-shaped token."""
    if not text:
        return text
    secrets = known_secrets() if secrets is None else secrets
    ordered = _ordered(tuple(secrets.items()))
    for _value, name, forms in ordered:
        for form in forms:
            if form in text:
                text = text.replace(form, f"[redacted:{name}]")
    # A shape that cannot match is not searched for: case folding and a leading scheme defeat the
    # engine's literal search (~15 ms on 100 KB of output), the substring checks cost microseconds.
    text = _SK_TOKEN.sub(_redact_sk, text)
    if "bearer" in text.lower():
        text = _BEARER.sub(_redact_bearer, text)
    if "://" in text:
        text = _URL_CREDENTIALS.sub(r"\1[redacted]\3", text)
    for value, name, _ in ordered:
        text = _redact_clipped(text, value, name)
    return text


# A gate redacts every message of a long history with the same secrets: their order and their
# JSON forms are worked out once per set of secrets, not once per text.
@functools.lru_cache(maxsize=32)
def _ordered(secrets: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(value, name, the forms it can appear in), longest value first: a secret containing another
    is replaced whole."""
    return tuple((value, name, _forms(value)) for value, name in sorted(secrets, key=lambda item: -len(item[0])))


class Redactor:
    """Replaces known secret values in text; reads the environment afresh for every line."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        self._environ = os.environ if environ is None else environ
        self._extra: dict[str, str] = {}  # value -> name

    def add(self, name: str, value: str) -> None:
        if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH:
            self._extra[value] = name
            remember_secret(name, value)  # shown anywhere else, it is redacted there too

    def secrets(self) -> dict[str, str]:
        """value -> name of every secret known now (the environment can change during a session)."""
        found = known_secrets(self._environ)
        found.update(self._extra)
        return found

    def redact(self, text: str) -> str:
        return redact_secrets(text, self.secrets())


def _forms(value: str) -> tuple[str, ...]:
    # In a JSON line a value with quotes, backslashes or control characters appears escaped.
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    return (value,) if escaped == value else (escaped, value)


def _redact_sk(match: re.Match[str]) -> str:
    return "[redacted:sk-token]" if _is_random(match.group(0)[3:]) else match.group(0)


def _redact_bearer(match: re.Match[str]) -> str:
    # After "Bearer" any token of letters mixed with digits is a credential.
    token = match.group(2)
    return f"{match.group(1)}[redacted]" if re.search(r"\d", token) and re.search(r"[A-Za-z]", token) else match.group(0)


def _is_random(token: str) -> bool:
    """A key, not a word: a long run of letters and digits mixed ("sk-learn-is-great" is not)."""
    return any(re.search(r"\d", run) and re.search(r"[A-Za-z]", run) for run in _RANDOM_RUN.findall(token))


def _redact_clipped(text: str, value: str, name: str) -> str:
    """A prefix of ``value`` cut off by clipping: at the very end, or right before an ellipsis."""
    if len(value) <= MIN_CLIPPED_PREFIX or value[:MIN_CLIPPED_PREFIX] not in text:
        return text
    ends = [len(text)] + [match.start() for ellipsis in _ELLIPSES for match in re.finditer(re.escape(ellipsis), text)]
    for end in sorted(set(ends), reverse=True):
        for length in range(min(len(value) - 1, end), MIN_CLIPPED_PREFIX - 1, -1):
            if text[end - length : end] == value[:length]:
                text = f"{text[: end - length]}[redacted:{name}]{text[end:]}"
                break
    return text


__all__ = ["MIN_SECRET_LENGTH", "Redactor", "known_secrets", "looks_secret", "redact_secrets", "remember_secret"]
