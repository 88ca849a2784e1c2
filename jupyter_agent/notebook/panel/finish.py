"""When a turn ends the live panel gives way to its static rendering, and its widgets are closed.

A saved notebook keeps outputs, not kernel objects: a widget view reopened without its kernel
shows "model not found", and nbconvert prints the widget's repr. So the cell's outputs are
cleared and the recorded transcript displayed in their place (Markdown, escaped HTML, a short
plain text, images as images). Both messages carry the parent header of the ``%%agent`` cell:
the turn's task was created while that cell executed, and ipykernel routes a task's output by the
context it was created in. Closing the panel's widget frees what it holds in the kernel (its comm,
its nodes, and through the buttons' hooks the turn itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class FinishedPanel(Protocol):
    """What the end of a turn uses of its panel (``AgentPanel``)."""

    def static_bundles(self) -> list[dict[str, str]]: ...
    def close(self) -> None: ...


def replace_with_static(
    bundles: list[dict[str, str]],
    *,
    clear: Callable[[], None] | None = None,
    display: Callable[[dict[str, str]], None] | None = None,
) -> None:
    """Clears the cell's output and displays ``bundles`` (built first: nothing is lost on failure)."""
    if clear is None:
        from IPython.display import clear_output

        clear = clear_output
    if display is None:
        from jupyter_agent.notebook.panel.static_render import display_bundle

        display = display_bundle
    clear()
    for bundle in bundles:
        display(bundle)


def finish_panel(
    panel: FinishedPanel, *, clear: Callable[[], None] | None = None, display: Callable[[dict[str, str]], None] | None = None
) -> None:
    """The panel's end: its static rendering in the cell, then its widget closed."""
    bundles = panel.static_bundles()
    replace_with_static(bundles, clear=clear, display=display)
    panel.close()
