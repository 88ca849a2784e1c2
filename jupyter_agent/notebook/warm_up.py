"""After ``%load_ext``: what the first turn imports, imported beforehand in the background.

``%load_ext`` imports almost nothing (it must be quick). A turn needs the panel, the runtime, the
tools, the features and litellm's stream: some 120 modules, about 0.5 s on a small machine, which
the first ``%%agent`` cell after a restart would otherwise import while the user waits. Once
litellm's own import is over (``model/litellm_loader.py``, also a background thread), a daemon
thread imports them with the garbage collector paused, freezing what they made (``long_lived``).
A turn that starts meanwhile imports what it needs itself: Python's import lock makes one thread
wait for a module the other is importing, never import it twice.

Then the thread makes the tools' JSON schemas, runs litellm's first completion offline (a mocked
answer: litellm imports some 60 more modules on its first call, and every provider's configuration
on its first model lookup, which the first turn's request waited for) and loads the tokenizer
litellm counts the configured model's tokens with. litellm loads it on first use, which is the
first response's cost bookkeeping, on the kernel's loop (for OpenAI's o200k_base some 200 000
base64 tokens decoded: about a second in which the kernel answers nothing, right after the first
turn of every kernel).

Last, it reads the session the next turn most likely continues (``session/preload.py``) and makes
its next request's passes over that history (``request_ahead.py``): the first turn after a restart
of a long session neither parses the whole file nor converts every message while the user waits.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_agent.long_lived import long_lived_objects

if TYPE_CHECKING:
    from jupyter_agent.session.preload import Prepare

# What a turn imports beyond %load_ext (each pulls in its own modules): the live panel and the
# static finish, the tools, the features with their views, the model's litellm stream. Modules,
# not their packages: a package facade imports nothing until a name is asked for (lazy_facade).
TURN_MODULES = (
    "jupyter_agent.runtime.run",
    "jupyter_agent.notebook.runner",  # the turn itself, its tools (toolset) and the features' registry
    "jupyter_agent.notebook.config",  # the turn's settings (AgentConfig.turn)
    "jupyter_agent.notebook.model_resolution",
    "jupyter_agent.notebook.site_limits",
    "jupyter_agent.notebook.system_prompt",
    "jupyter_agent.notebook.agent_cells",
    "jupyter_agent.notebook.views",
    "jupyter_agent.session.store",
    "jupyter_agent.session.recorder",
    "jupyter_agent.session.snapshots",
    "jupyter_agent.session.context_files",
    "jupyter_agent.model.litellm_stream",
    "jupyter_agent.model.catalog",
    "jupyter_agent.tools.coding",
    "jupyter_agent.tools.kernel",
    "jupyter_agent.features.turn_features",
    "jupyter_agent.features.mcp",
    "jupyter_agent.features.notebook_tools.tools",
    "jupyter_agent.features.notebook_tools.prompt",
    "jupyter_agent.features.kernel_state.watch",
    "jupyter_agent.notebook.panel.panel",
    "jupyter_agent.notebook.panel.finish",
    "jupyter_agent.notebook.panel.static_render",
    "jupyter_agent.notebook.mentions",
    "jupyter_agent.notebook.live_code",
    "jupyter_agent.notebook.comm.notebook_bridge",
    "jupyter_agent.notebook.session_moves",
    "jupyter_agent.session.trust",
)

_started = threading.Event()
done = threading.Event()  # set when the warm-up is over (tests and benchmarks wait for it)


def warm_up(
    model: Callable[[], str | None] = lambda: None,
    session: Callable[[], Path | None] = lambda: None,
    prepare: Prepare | None = None,
) -> None:
    """Starts the warm-up thread (once per kernel); it waits for litellm's import first.
    ``model``: the model a turn would use when the thread gets there (its tokenizer is loaded);
    ``session``: the session file it would continue (read ahead); ``prepare``: what makes the next
    request's passes over that session's history (``request_ahead.prepare_request``)."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_warm, args=(model, session, prepare), name="jupyter-agent-warm-up", daemon=True).start()


def _warm(model: Callable[[], str | None], session: Callable[[], Path | None], prepare: Prepare | None) -> None:
    from jupyter_agent.model.litellm_loader import litellm_module_sync

    try:
        try:
            litellm_module_sync()  # after litellm: two imports at once would each take longer
        except ImportError:
            pass  # the turn says why litellm is missing; its own modules are still worth importing
        with long_lived_objects():
            for name in TURN_MODULES:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 - the turn that imports it reports the failure
                    pass
            _tool_schemas()
            _first_completion(model)
            _load_tokenizer(model)
        _preload_session(session, prepare)  # its own collector windows (long_lived), sized by the file
    finally:
        done.set()


def _tool_schemas() -> None:
    """The JSON schemas of the kernel and coding tools: pydantic makes one in milliseconds (kept per
    class), which the first turn's request made for every tool."""
    from jupyter_agent.tools import coding_tools, kernel_tools

    try:
        for tool in [*kernel_tools(None), *coding_tools(Path.cwd())]:
            tool.spec()
    except Exception:  # noqa: BLE001 - the turn makes the schemas itself and reports what is wrong
        pass


def _first_completion(model: Callable[[], str | None]) -> None:
    from jupyter_agent.model.litellm_stream import warm_first_completion

    try:
        warm_first_completion(model())
    except Exception:  # noqa: BLE001 - litellm missing or refusing the model: the first turn says why
        pass


def _load_tokenizer(model: Callable[[], str | None]) -> None:
    from jupyter_agent.model.litellm_tokens import count_tokens

    try:
        name = model()
    except Exception:  # noqa: BLE001 - no model known yet: litellm loads the tokenizer when it needs it
        return
    if name:
        count_tokens(name, "warm")  # None for a model litellm cannot count: nothing to load


def _preload_session(session: Callable[[], Path | None], prepare: Prepare | None) -> None:
    from jupyter_agent.session.preload import preload_session

    try:
        path = session()
    except Exception:  # noqa: BLE001 - no notebook folder known yet: the first turn reads its session itself
        return
    if path is not None:
        preload_session(path, prepare)


__all__ = ["TURN_MODULES", "done", "warm_up"]
