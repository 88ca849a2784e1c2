"""Which model a turn uses, and how to call it.

Order: the cell's ``-m``, then ``%agent model NAME``, then ``AgentMagics.model`` /
``JUPYTER_AGENT_MODEL``, then the first provider whose key is set, then a local Ollama server if
one answers, then the offline demo model, so the quick-start runs with no key and no network.
"""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass
from typing import Awaitable, Callable, Mapping

from jupyter_agent.errors import UserFacingError
from jupyter_agent.features.feature import ResolvedModel
from jupyter_agent.messages import JsonValue
from jupyter_agent.model import AssistantMessageEventStream, Context, Model, StreamFn, StreamOptions
from jupyter_agent.model.secrets import remember_secret
from jupyter_agent.model.types import ModelInputMetadata

DEMO_NAME = "demo"
OLLAMA_URL = "http://127.0.0.1:11434"
# Long enough for a local server to answer, short enough that nobody notices when none runs.
OLLAMA_TIMEOUT = 0.3

# Provider key -> the model used when only that key is set: capable, fast, tool-calling models.
PROVIDER_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-4.1-mini"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
    ("OPENROUTER_API_KEY", "openrouter/openai/gpt-4.1-mini"),
    ("MISTRAL_API_KEY", "mistral/mistral-large-latest"),
    ("DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
)


@dataclass(frozen=True)
class ModelChoice:
    name: str  # what the turn asks for: a litellm name, "demo", or a registered name
    source: str  # why: "option", "session", "configuration", "environment", "OPENAI_API_KEY", "ollama", "default"

    @property
    def is_demo(self) -> bool:
        return self.name == DEMO_NAME


@dataclass
class _Registered:
    stream_fn: StreamFn
    model: Model


_REGISTRY: dict[str, _Registered] = {}


def register_model(name: str, stream_fn: StreamFn, model: Model | None = None) -> None:
    """Makes ``name`` usable with ``-m``/``AgentMagics.model`` for a custom stream function."""
    _REGISTRY[name] = _Registered(stream_fn, model or Model(id=name, provider="custom"))


def unregister_model(name: str) -> None:
    _REGISTRY.pop(name, None)


def is_registered(name: str) -> bool:
    """Whether ``name`` is a model registered with its own stream function (``register_model``)."""
    return name in _REGISTRY


def choose_model(
    option: str | None,
    session_default: str | None,
    configured: str | None,
    env: Mapping[str, str] | None = None,
    probe_ollama: Callable[[], str | None] | None = None,
    configured_by: str = "configuration",
) -> ModelChoice:
    """``configured``: the kernel's ``model`` setting (``AgentConfig.model``: ``%config``, else
    JUPYTER_AGENT_MODEL), ``configured_by`` which of them gave it (``AgentConfig.set_by``); ``env``:
    where the providers' keys are looked for."""
    env = os.environ if env is None else env
    if option:
        return ModelChoice(option, "option")
    if session_default:
        return ModelChoice(session_default, "session")
    if configured:
        return ModelChoice(configured, configured_by)
    for key, name in PROVIDER_DEFAULTS:
        if env.get(key):
            return ModelChoice(name, key)
    ollama = (probe_ollama or local_ollama_model)()
    if ollama:
        return ModelChoice(ollama, "ollama")
    return ModelChoice(DEMO_NAME, "default")


def local_ollama_model(base_url: str = OLLAMA_URL, timeout: float = OLLAMA_TIMEOUT) -> str | None:
    """The first model a local Ollama server has pulled, as a litellm name; None if none answers."""
    try:
        with urllib.request.urlopen(f"{base_url}/api/tags", timeout=timeout) as response:
            models = json.loads(response.read().decode()).get("models") or []
    except (OSError, ValueError):
        return None
    names = [entry.get("name") or entry.get("model") for entry in models if isinstance(entry, dict)]
    names = [name for name in names if name]
    # ollama_chat speaks the chat endpoint, which is the one with tool calling.
    return f"ollama_chat/{names[0]}" if names else None


CHOSEN_BY = {
    "option": "the cell's -m",
    "session": "%agent model",
    "configuration": "%config AgentMagics.model",
    "environment": "JUPYTER_AGENT_MODEL",
}


class UnknownModelError(ValueError, UserFacingError):
    """A model name litellm cannot route: said before any request, not as a provider failure."""


def check_model_name(name: str, api_base: str | None = None) -> str | None:
    """Why ``name`` cannot be used (``None``: it can); the demo and registered names always can."""
    if name == "demo" or name in _REGISTRY:
        return None
    from jupyter_agent.session.site_policy import SitePolicyError, load_site_policy

    try:
        refused = load_site_policy().model_problem(name)
    except SitePolicyError as error:
        return str(error)
    if refused is not None:
        return refused
    from jupyter_agent.model.catalog import unknown_model

    return unknown_model(name, api_base=api_base)


def with_credentials(
    stream_fn: StreamFn,
    api_key: str | None,
    api_base: str | None,
    idle_timeout: float | None = None,
    request_fields: Mapping[str, JsonValue] | None = None,
) -> StreamFn:
    """A stream function that adds the configured key, base URL and idle timeout to every request,
    and ``request_fields`` (a proxy's ``user`` and metadata) unless the caller's options set them."""
    if not api_key and not api_base and idle_timeout is None and not request_fields:
        return stream_fn
    if api_key:
        remember_secret("api_key", api_key)

    def stream(
        model: Model, context: Context, options: StreamOptions | None = None, metadata: ModelInputMetadata | None = None
    ) -> AssistantMessageEventStream | Awaitable[AssistantMessageEventStream]:
        options = options or StreamOptions()
        update: dict[str, object] = {}
        if api_key and not options.api_key:
            update["api_key"] = api_key
        if api_base and not options.api_base:
            update["api_base"] = api_base
        if idle_timeout is not None and options.idle_timeout is None:
            update["idle_timeout"] = idle_timeout
        if request_fields:
            update["extra"] = {**request_fields, **options.extra}
        return stream_fn(model, context, options.model_copy(update=update), metadata)

    return stream


def needs_litellm(choice: ModelChoice) -> bool:
    return not choice.is_demo and choice.name not in _REGISTRY


def resolve(
    choice: ModelChoice,
    *,
    api_key: str | None = None,
    api_base: str | None = None,
    idle_timeout: float | None = None,
    request_fields: Mapping[str, JsonValue] | None = None,
) -> ResolvedModel:
    """Builds the model and stream function; may import litellm (call it off the event loop)."""
    if choice.is_demo:
        from jupyter_agent.notebook.demo_model import demo_model, demo_stream_fn

        return ResolvedModel(demo_model(), demo_stream_fn(), "offline demo model (no LLM connected)", is_demo=True)
    registered = _REGISTRY.get(choice.name)
    if registered is not None:
        return ResolvedModel(registered.model, registered.stream_fn, registered.model.name)
    from jupyter_agent.model.catalog import get_model, unknown_model
    from jupyter_agent.model.litellm_stream import litellm_stream

    problem = unknown_model(choice.name, api_base=api_base)
    if problem:
        where = CHOSEN_BY.get(choice.source, choice.source)
        raise UnknownModelError(f"{problem} (chosen by {where})")

    overrides = {"base_url": api_base} if api_base else {}
    model = get_model(choice.name, **overrides)
    stream_fn = with_credentials(litellm_stream, api_key, api_base, idle_timeout, request_fields)
    return ResolvedModel(model, stream_fn, choice.name)
