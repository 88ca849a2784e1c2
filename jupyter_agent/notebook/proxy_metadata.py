"""What a LiteLLM proxy is told about each request, so a team's spend is attributed to who asked.

Models named ``litellm_proxy/<alias>`` go through a LiteLLM proxy (``JUPYTER_AGENT_API_BASE`` or
``LITELLM_PROXY_API_BASE`` is its URL, ``JUPYTER_AGENT_API_KEY`` or ``LITELLM_PROXY_API_KEY`` the
virtual key). Their requests carry ``user`` (the proxy's end user: ``JUPYTER_AGENT_USER``, else
JupyterHub's ``JUPYTERHUB_USER``, else the login name) and request tags naming the product, the
notebook and the session, which the proxy records in its spend logs and can budget by. Other
providers get nothing: a user name is not theirs to know.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Mapping

from jupyter_agent.messages import JsonObject, JsonValue

PROXY_PREFIX = "litellm_proxy/"
USER_ENV = "JUPYTER_AGENT_USER"
TAG = "jupyter-agent"


def notebook_user(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    for name in (USER_ENV, "JUPYTERHUB_USER"):
        if env.get(name, "").strip():
            return env[name].strip()
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "unknown"


def proxy_request_fields(
    model_name: str, session: str, notebook: Path | None, env: Mapping[str, str] | None = None
) -> JsonObject:
    """Extra request fields for ``model_name``: ``user`` and tagged metadata for a proxy, else none."""
    if not model_name.startswith(PROXY_PREFIX):
        return {}
    tags: list[JsonValue] = [TAG, f"session:{session}"]
    if notebook is not None:
        tags.append(f"notebook:{notebook.name}")
    metadata: JsonObject = {"tags": tags, "session": session}
    if notebook is not None:
        metadata["notebook"] = str(notebook)
    # extra_body: litellm keeps a top-level ``metadata`` for its own callbacks; the proxy reads the body's.
    return {"user": notebook_user(env), "extra_body": {"metadata": metadata}}
