"""Inline completion in the notebook: the lab extension's ``complete_request`` served by the kernel.

The extension's inline completion provider (``labextension/src/completion.ts``) sends the cell's
prefix and suffix as the user types; ``features.completion.CompletionService`` streams the answer
back as ``completion`` messages. This module adds what only the notebook knows: the settings
(``AgentMagics.completion`` on/off, ``AgentMagics.completion_model``, default the turn's model),
the site policy's limits, the model's resolution (once per configuration, off the loop), the
request path (a direct streaming POST for an OpenAI-compatible ``api_base``,
``features/completion/openai_stream.py``; litellm for every other provider), and whether a cell
of the user is executing (``pre_run_cell`` … ``post_run_cell``), during which no completion
starts and those streaming are silenced at once and cancelled soon after (``CompletionService.make_way``), so none ever delays it.

Threads: ``complete`` and ``cancel`` are called on the thread the comm message arrived on (a
kernel subshell's in JupyterLab ≥ 4.4), the cell hooks on the kernel's; the service hands all
of it to the completion thread, where the model is resolved and streams.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from jupyter_agent.features.completion import CompletionModel, CompletionRequest, CompletionService, CompletionUpdate
from jupyter_agent.notebook.comm import protocol as p

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.model import Model, StreamFn
    from jupyter_agent.notebook.config import AgentConfig
    from jupyter_agent.notebook.session_manager import SessionManager
    from jupyter_agent.tools.data_policy import DataPolicy

COMPLETIONS_OFF = "inline completions are off (%config AgentMagics.completion = True turns them on)"
NOT_INTERACTIVE = "inline completions need an interactive notebook frontend"


class NotebookCompletions:
    """The kernel's completions for the lab extension (the comm handler's ``complete``)."""

    def __init__(self, shell: InteractiveShell | None, sessions: SessionManager, config: Callable[[], AgentConfig]) -> None:
        self.shell = shell
        self.sessions = sessions
        self._config = config
        self._resolved: dict[tuple[str | None, ...], CompletionModel] = {}  # by the settings that chose it
        self._cell_running = False
        self.service = CompletionService(
            getattr(shell, "user_ns", None) or {},
            model=self._model,
            policy=self._policy,
            user_code_running=lambda: self._cell_running,
        )
        self._events = getattr(shell, "events", None)
        if self._events is not None:
            self._events.register("pre_run_cell", self._cell_starts)
            self._events.register("post_run_cell", self._cell_ended)

    def close(self) -> None:
        async def close_model() -> None:
            for chosen in self._resolved.values():
                if chosen.close is not None:
                    await chosen.close()

        self.service.close(close_model)
        if self._events is not None:
            for name, callback in (("pre_run_cell", self._cell_starts), ("post_run_cell", self._cell_ended)):
                try:
                    self._events.unregister(name, callback)
                except ValueError:
                    pass  # never registered (or already gone)
            self._events = None

    def complete(self, request: p.CompleteRequest, send: Callable[[p.Completion], None]) -> None:
        def forward(update: CompletionUpdate) -> None:
            send(
                p.Completion(
                    request_id=update.request_id,
                    text=update.text,
                    status=update.status,
                    message=update.message,
                    model=update.model,
                )
            )

        if request.replaces:
            self.service.cancel(request.replaces)
        refusal = self._refusal()
        if refusal:
            send(p.Completion(request_id=request.request_id, text="", status="skipped", message=refusal))
            return
        self.service.start(
            CompletionRequest(request.request_id, request.prefix, request.suffix, tuple(request.cells_above)), forward
        )

    def cancel(self, request_id: str) -> None:
        self.service.cancel(request_id)

    # -- the notebook's facts --------------------------------------------------------------------

    def _refusal(self) -> str:
        from jupyter_agent.notebook import frontend

        if not self._config().completion:
            return COMPLETIONS_OFF
        if frontend.frontend_mode(self.shell) != "panel":
            return NOT_INTERACTIVE  # headless runs: nobody types
        return ""

    def _cell_starts(self, info: object = None) -> None:
        self._cell_running = True
        self.service.make_way()  # silenced now, cancelled once a short cell is over

    def _cell_ended(self, result: object = None) -> None:
        self._cell_running = False

    def _policy(self) -> DataPolicy:
        from jupyter_agent.notebook.site_limits import load_site_policy
        from jupyter_agent.tools.data_policy import DataPolicy

        config = load_site_policy().apply(self._config())  # the site's data ceiling applies here too
        return DataPolicy(config.data_policy, config.sample_rows, ceiling=config.data_ceiling)

    async def _model(self) -> CompletionModel:
        """``completion_model``, else the model the next turn would use; resolved once per setting."""
        from jupyter_agent.features.completion.openai_stream import OpenAICompatibleStream
        from jupyter_agent.notebook.model_resolution import choose_model, is_registered, resolve, with_credentials
        from jupyter_agent.notebook.site_limits import load_site_policy, site_model
        from jupyter_agent.notebook.toolset import data_policy, privacy_gate

        policy = load_site_policy()
        config = policy.apply(self._config())
        session_model = self.sessions.recent().model_name
        key = (config.completion_model, config.model, session_model, config.api_key, config.api_base, config.data_policy)
        cached = self._resolved.get(key)
        if cached is not None:
            return cached

        def choose_and_resolve() -> CompletionModel:
            # choose_model may ask a local Ollama server: off the loop, like the model's resolution.
            choice = choose_model(
                config.completion_model or None, session_model, config.model, configured_by=config.set_by("model")
            )
            resolved = resolve(
                site_model(choice, policy),
                api_key=config.api_key or None,
                api_base=config.api_base or None,
                idle_timeout=config.stream_timeout,
            )
            stream_fn = resolved.stream_fn or _litellm_stream()  # None means the runtime's default
            api_base = config.api_base or resolved.model.base_url
            direct = None
            if not resolved.is_demo and not is_registered(choice.name) and openai_compatible(resolved.model, api_base):
                direct = OpenAICompatibleStream()
                stream_fn = with_credentials(direct, config.api_key or None, api_base, config.stream_timeout)
            # A completion request passes the turns' privacy gate: the prefix may hold a secret.
            stream_fn = privacy_gate(data_policy(config.data_policy, config.sample_rows, config.data_ceiling)).stream(stream_fn)
            return CompletionModel(
                resolved.model, stream_fn, resolved.label, is_demo=resolved.is_demo, close=direct.aclose if direct else None
            )

        chosen = await asyncio.to_thread(choose_and_resolve)
        previous, self._resolved = self._resolved, {key: chosen}  # one configuration at a time
        for replaced in previous.values():
            if replaced.close is not None:
                await replaced.close()
        return chosen


def openai_compatible(model: Model, api_base: str | None) -> bool:
    """Whether a completion with ``model`` may skip litellm: an ``openai/`` model at an ``api_base``.

    OpenAI's own endpoint is left to litellm: its reasoning models take other parameters
    (``max_completion_tokens``, no temperature), which litellm maps per model.
    """
    return model.api == "litellm" and model.provider == "openai" and bool(api_base) and "api.openai.com" not in str(api_base)


def _litellm_stream() -> StreamFn:
    from jupyter_agent.model.litellm_stream import litellm_stream

    return litellm_stream
