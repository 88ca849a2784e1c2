"""``%load_ext jupyter_agent``: registers the magics, their cell transformer, and preloads litellm.

Loading must stay fast (target ≤ 0.1 s): it imports the magics, the site policy and the interrupt
router, none of the models, the runtime or the session store (package facades are lazy:
``jupyter_agent.lazy_facade``). litellm (~8 s) is imported in a background thread, and then the
modules of a turn (``warm_up``), so both are usually ready by the time the first turn needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.session_manager import SessionManager


def load_ipython_extension(ipython: InteractiveShell) -> None:
    from jupyter_agent.notebook.interrupt import interrupt_router
    from jupyter_agent.notebook.magics import AgentMagics, CellTransformer
    from jupyter_agent.session.site_policy import bind_site_policy

    bind_site_policy()  # where the site policy is, as the kernel was started: no later cell moves it
    unload_ipython_extension(ipython)  # reloading must not stack transformers
    from jupyter_agent.model.litellm_errors import set_api_key_hint

    set_api_key_hint("%config AgentMagics.api_key")  # what "no API key" errors tell the user to set
    interrupt_router(ipython)  # the kernel's Interrupt (■) reaches runs through its saved handler
    from jupyter_agent.notebook.cell_clock import cell_clock

    cell_clock(ipython)  # from now on each cell's last run time is known (notebook_run asks before slow ones)
    magics = AgentMagics(shell=ipython)
    ipython.register_magics(magics)
    transformer = CellTransformer(ipython, magics)
    ipython.input_transformers_cleanup.append(transformer)
    preload = magics.preload and not _uses_only_offline_models(magics)
    _soon(lambda: _after_loading(ipython, magics, preload))


def _after_loading(ipython: InteractiveShell, magics: AgentMagics, preload: bool) -> None:
    import asyncio
    import threading

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # terminal IPython without a loop: nothing else waits meanwhile
        _register(ipython, magics, preload)
        return

    def import_then_register() -> None:
        # The comm's modules (pydantic, the protocol: ~0.1 s) are imported off the kernel's loop,
        # which meanwhile answers the next cells; the lab extension looks for the target again
        # for a few seconds after the %load_ext cell (labextension/src/connection.ts).
        try:
            import jupyter_agent.notebook.comm.hooks  # noqa: F401
        finally:
            loop.call_soon_threadsafe(_register, ipython, magics, preload)

    threading.Thread(target=import_then_register, name="jupyter-agent-load", daemon=True).start()


def _register(ipython: InteractiveShell, magics: AgentMagics, preload: bool) -> None:
    if not _loaded(ipython, magics):
        return  # unloaded (or loaded again) while the comm's modules were imported
    _register_lab_target(ipython, magics)
    if preload:
        # Started only now: the import thread competes for the interpreter lock, and the
        # registration's own imports would otherwise take three times as long.
        from jupyter_agent.model.litellm_loader import preload_litellm
        from jupyter_agent.notebook.request_ahead import prepare_request
        from jupyter_agent.notebook.warm_up import warm_up

        preload_litellm()
        # Then what the first turn imports, the tokenizer of the model it would use (read when
        # the thread gets there: a %config in the next cells counts), the session it would
        # continue and its request's passes over it: the turn waits for none of them.
        warm_up(lambda: _default_model(magics), magics.sessions.likely_next, prepare_request(magics))


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    import sys

    mcp = sys.modules.get("jupyter_agent.features.mcp.registry")  # no server runs unless it was imported
    if mcp is not None:
        mcp.registry().kill_all()
    serve = sys.modules.get("jupyter_agent.features.mcp_server.server")  # no server unless it was imported
    if serve is not None:
        serve.stop_serving()
    clock = sys.modules.get("jupyter_agent.notebook.cell_clock")
    if clock is not None:
        clock.remove_cell_clock(ipython)
    lab = sys.modules.get("jupyter_agent.notebook.comm")  # never registered unless imported
    if lab is not None:
        lab.unregister_comm_target(ipython)
    transformers = ipython.input_transformers_cleanup
    from jupyter_agent.notebook.magics import CellTransformer

    for transformer in [t for t in transformers if isinstance(t, CellTransformer)]:
        transformers.remove(transformer)
        transformer.magics.bridge.close()  # completions stop; their cell hooks go
        _stop_turns(transformer.magics.sessions)
        transformer.magics.sessions.close()
    registry = ipython.magics_manager.magics
    # Only ours: another extension's %agent stays. Without the magics module imported none of ours is there.
    ours = getattr(sys.modules.get("jupyter_agent.notebook.magics"), "AgentMagics", None)
    for kind in ("line", "cell"):
        method = registry[kind].get("agent")
        if ours is not None and method is not None and isinstance(getattr(method, "__self__", None), ours):
            del registry[kind]["agent"]


def _stop_turns(sessions: SessionManager) -> None:
    """Unloading stops the agent: its turns would otherwise write to closed session stores."""
    from jupyter_agent.notebook import runner

    for session in sessions.sessions.values():
        for turn in runner.turns_of(session):
            turn.stop()


def _loaded(ipython: InteractiveShell, magics: AgentMagics) -> bool:
    from jupyter_agent.notebook.magics import CellTransformer

    return any(isinstance(t, CellTransformer) and t.magics is magics for t in ipython.input_transformers_cleanup)


def _register_lab_target(ipython: InteractiveShell, magics: AgentMagics) -> None:
    from jupyter_agent.notebook.comm import register_comm_target

    register_comm_target(ipython, magics.bridge)  # None without a kernel: nothing to talk to


def _soon(action: Callable[[], None]) -> None:
    """Runs ``action`` right after the current cell when a loop runs (keeps ``%load_ext`` fast)."""
    import asyncio

    try:
        asyncio.get_running_loop().call_soon(action)
    except RuntimeError:
        action()


def _default_model(magics: AgentMagics) -> str:
    from jupyter_agent.notebook.request_ahead import next_turn_settings

    return next_turn_settings(magics, probe_ollama=lambda: None)[1].name  # no wait for a local server


def _uses_only_offline_models(magics: AgentMagics) -> bool:
    import os

    from jupyter_agent.notebook.magics import setting_variable

    return (magics.model or os.environ.get(setting_variable("model") or "", "")) == "demo"
