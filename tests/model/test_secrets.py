"""Keys the product was given and credential-shaped tokens never show, whatever the text."""

import json
import uuid

import pytest

from jupyter_agent.model.secrets import known_secrets, redact_secrets, remember_secret


def fresh(prefix="key"):
    return f"{prefix}-{uuid.uuid4().hex}"


def test_a_remembered_key_is_redacted_whole_and_json_escaped():
    key = fresh() + '"q'
    assert key in redact_secrets(f"rejected {key}")  # not shaped like a token: unknown until remembered
    remember_secret("api_key", key)
    assert redact_secrets(f"rejected {key} twice {key}") == "rejected [redacted:api_key] twice [redacted:api_key]"
    assert redact_secrets(json.dumps({"message": key})) == '{"message": "[redacted:api_key]"}'


def test_a_bearer_value_is_remembered_with_its_token():
    token = fresh("tok")
    remember_secret("Authorization", f"Bearer {token}")
    assert redact_secrets(f"token={token}") == "token=[redacted:Authorization]"


def test_short_values_are_settings_not_secrets():
    remember_secret("api_key", "dev")
    assert redact_secrets("a dev build") == "a dev build"


@pytest.mark.parametrize("clipped", ["{p}…", "{p}...", "…{p}", "{p}"])
def test_no_prefix_of_a_key_is_left_by_line_clipping(clipped):
    key = fresh()
    secrets = {key: "OPENAI_API_KEY"}
    text = "error: " + clipped.format(p=key[:10])
    assert key[:6] not in redact_secrets(text, secrets)
    assert "[redacted:OPENAI_API_KEY]" in redact_secrets(text, secrets)


def test_a_key_prefix_in_the_middle_of_text_is_ordinary_text():
    secrets = {"abcdef-0123456789": "X_KEY"}
    assert redact_secrets("abcdef-01 is a label, fine", secrets) == "abcdef-01 is a label, fine"


def test_environment_keys_and_url_passwords_are_known():
    env = {
        "OPENAI_API_KEY": "sk-env-value-xyz",
        "DATABASE_URL": "postgres://app:hunter2-pw@db:5432/x",
        "HOME_URL": "https://example.org/",
        "DEBUG": "1",
    }
    found = known_secrets(env)
    assert found["sk-env-value-xyz"] == "OPENAI_API_KEY" and found["hunter2-pw"] == "DATABASE_URL"
    assert "https://example.org/" not in found and "1" not in found
    assert redact_secrets("password hunter2-pw", found) == "password [redacted:DATABASE_URL]"


SHAPED = [
    ("key sk-proj-AbCdEf0123456789GhIjKl_mn-op", "key [redacted:sk-token]"),
    ("sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2-abc", "[redacted:sk-token]"),
    ("Authorization: Bearer eyJhbGciOi1234.abcdefGHIJ", "Authorization: Bearer [redacted]"),
    ("postgres://user:s3cret@db.example:5432/app", "postgres://user:[redacted]@db.example:5432/app"),
    ("redis://:pw@localhost", "redis://:pw@localhost"),  # no user part: not userinfo we parse, left
]
ORDINARY = [
    "pip install scikit-learn; the sk-learn-is-a-great-library slug",
    "the bearer of bad news, the bearer-of-the-torch",
    "see https://example.org/path?q=1 and mailto:someone@example.org",
    "ratio 12:34@noon",
    "task-0123456789abcdef is an id",
]


@pytest.mark.parametrize("text, expected", SHAPED)
def test_credential_shaped_tokens_are_redacted(text, expected):
    assert redact_secrets(text, {}) == expected


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_mangled(text):
    assert redact_secrets(text, {}) == text


def test_each_set_of_secrets_redacts_its_own_values_longest_first():
    first = {"abcdef123456": "SHORT_KEY"}
    assert redact_secrets("k=abcdef123456789", first) == "k=[redacted:SHORT_KEY]789"
    # A set that also holds a longer secret containing the first replaces the longer one whole.
    both = {"abcdef123456": "SHORT_KEY", "abcdef123456789": "LONG_KEY"}
    assert redact_secrets("k=abcdef123456789", both) == "k=[redacted:LONG_KEY]"
    assert redact_secrets('j="q\\"uote123456"', {'q"uote123456': "Q_TOKEN"}) == 'j="[redacted:Q_TOKEN]"'
    assert redact_secrets("k=abcdef123456789", first) == "k=[redacted:SHORT_KEY]789"  # the first set again
