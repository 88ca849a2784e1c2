"""Where the turn is shown: a widget panel, plain displays for headless runs, or the terminal.

* **panel**: a kernel with a Jupyter server session (JupyterLab, Notebook 7) or VS Code: an
  ipywidgets panel, and the cell returns at once unless ``--wait``.
* **static**: no Jupyter server session (nbclient, papermill, nbconvert): nobody watches live and
  only output whose parent is the executing cell is recorded, so the cell blocks until the turn
  ends and renders with plain displays.
* **terminal**: terminal IPython (no kernel, no widgets): runs in the foreground, streams text,
  asks ``allow? [y/n/a/A]``.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import TYPE_CHECKING, Literal, Mapping, Protocol

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.notebook.renderer import Renderer

Mode = Literal["panel", "static", "terminal"]


class RendererFactory(Protocol):
    """Makes a turn's renderer from what ``make_renderer`` is told of the turn."""

    def __call__(self, *, model_label: str, session: str, context_window: int | None, demo: bool) -> Renderer: ...


# A surface other than the cell may make a turn's renderer (the lab extension's side panel sets it
# around the turn's start): it gets make_renderer's keywords, and show() leaves it to that surface.
renderer_override: ContextVar[RendererFactory | None] = ContextVar("renderer_override", default=None)


def frontend_mode(shell: InteractiveShell | None, env: Mapping[str, str] | None = None) -> Mode:
    env = os.environ if env is None else env
    if getattr(shell, "kernel", None) is None:
        return "terminal"
    user_ns = getattr(shell, "user_ns", {}) or {}
    if env.get("JPY_SESSION_NAME") or user_ns.get("__session__") or user_ns.get("__vsc_ipynb_file__"):
        return "panel"
    return "static"


def blocks(mode: Mode, wait: bool | None, configured_wait: bool) -> bool:
    """Whether the cell waits for the turn: ``--wait``/``--no-wait`` win, then the frontend."""
    if mode == "terminal":
        return True  # nothing else could show the turn's progress
    if wait is not None:
        return wait
    return mode == "static" or configured_wait


def wait_option(tokens: list[str]) -> bool | None:
    """``--wait``/``--no-wait`` from a raw option line (the last one wins), without full parsing."""
    found = None
    for token in tokens:
        if token == "--wait":
            found = True
        elif token == "--no-wait":
            found = False
    return found


def make_renderer(mode: Mode, *, model_label: str, session: str, context_window: int | None, demo: bool) -> Renderer:
    override = renderer_override.get()
    if override is not None:
        return override(model_label=model_label, session=session, context_window=context_window, demo=demo)
    if mode == "panel":
        from jupyter_agent.notebook.panel.panel import AgentPanel

        return AgentPanel(model_label=model_label, session=session, context_window=context_window, demo=demo)
    if mode == "static":
        from jupyter_agent.notebook.panel.static_render import StaticRenderer

        return StaticRenderer(model_label=model_label, session=session, context_window=context_window, demo=demo)
    from jupyter_agent.notebook.panel.text_renderer import TextRenderer

    return TextRenderer(model_label=model_label, session=session, context_window=context_window, demo=demo)


def show(renderer: Renderer) -> None:
    """Displays the panel's widget in the current cell (renderers without one print as they go)."""
    widget = getattr(renderer, "widget", None)
    if widget is not None and not getattr(renderer, "shown_elsewhere", False):
        from IPython.display import display

        display(widget)
