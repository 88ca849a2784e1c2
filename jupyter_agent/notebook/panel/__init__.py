"""Renderers of agent runs: the ipywidgets panel, a static Markdown fallback, terminal text.

All three are pure consumers of a turn's events with the same surface (``notebook/renderer.py``):
`handle(event)`, `ask(request)`, `set_state`, `show_error`, `note`, `flush`, `set_model(label,
context_window)`; what a feature shows arrives as a `FeatureEvent` and goes to the views its view
module registers (``notebook/views.py``). Names resolve on first use so the terminal renderer
never imports ipywidgets.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "AgentPanel": "jupyter_agent.notebook.panel.panel",
    "StaticRenderer": "jupyter_agent.notebook.panel.static_render",
    "TextRenderer": "jupyter_agent.notebook.panel.text_renderer",
    "render_markdown": "jupyter_agent.notebook.panel.markdown",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jupyter_agent.notebook.panel' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = list(_LAZY)
