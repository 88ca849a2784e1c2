"""Hooks a test LiteLLM proxy loads from its config: virtual keys without a database, and a log of
what the proxy attributes each request to.

A proxy without PostgreSQL cannot store virtual keys, so ``user_api_key_auth`` (the proxy's
``general_settings.custom_auth``) answers for the keys in ``$JUPYTER_AGENT_PROXY_KEYS`` (JSON:
``{"sk-…": {"max_budget": 0.001, "team_id": "…", "key_alias": "…"}}``). With
``custom_auth_run_common_checks`` the proxy runs its own budget checks on them; the key's spend is
the proxy's own in-memory counter, seeded here with ``spend`` (a key already over its budget).

``spend_log`` (a ``litellm_settings.callbacks`` entry) appends one JSON line per finished request
to ``$JUPYTER_AGENT_PROXY_LOG``: the cost, the end user, the tags and the key's team, which is
what the proxy's spend logs would hold.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from litellm.integrations.custom_logger import CustomLogger
from litellm.proxy._types import UserAPIKeyAuth
from litellm.proxy.proxy_server import ProxyException

KEYS_ENV = "JUPYTER_AGENT_PROXY_KEYS"
LOG_ENV = "JUPYTER_AGENT_PROXY_LOG"


def _keys() -> dict[str, dict[str, Any]]:
    return json.loads(os.environ.get(KEYS_ENV) or "{}")


async def user_api_key_auth(request: Any, api_key: str) -> UserAPIKeyAuth:
    key = api_key.removeprefix("Bearer ").strip()
    entry = _keys().get(key)
    if entry is None:
        raise ProxyException(message="Authentication Error, invalid virtual key", type="auth_error", param="key", code=401)
    token = hashlib.sha256(key.encode()).hexdigest()
    return UserAPIKeyAuth(api_key=key, token=token, **entry)


class SpendLog(CustomLogger):
    async def async_log_success_event(self, kwargs: dict, response_obj: Any, start_time: Any, end_time: Any) -> None:
        payload = kwargs.get("standard_logging_object") or {}
        metadata = payload.get("metadata") or {}
        line = {
            "model_group": payload.get("model_group"),
            "response_cost": payload.get("response_cost"),
            "end_user": payload.get("end_user"),
            "request_tags": payload.get("request_tags"),
            "team_id": metadata.get("user_api_key_team_id"),
            "key_alias": metadata.get("user_api_key_alias"),
            "requester_metadata": metadata.get("requester_metadata"),
        }
        path = os.environ.get(LOG_ENV)
        if path:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line, default=str) + "\n")


spend_log = SpendLog()
