"""Matplotlib figures a run produced or changed, as PNG images (only when pyplot is in use).

With the kernel's inline backend, figures are displayed (and closed) by its post-execute hook,
which the capturing publisher sees. With other backends (Agg in scripts and tests) figures stay
open; a figure counts when it is new or was drawn before the run and is stale after it.
"""

from __future__ import annotations

import io
import sys
from typing import Any

# Figures are shown at the size the user would see; dpi 100 keeps a default figure under 100 KB.
FIGURE_DPI = 100


def _open_figures() -> list[Any]:
    if "matplotlib.pyplot" not in sys.modules:
        return []
    helpers = sys.modules.get("matplotlib._pylab_helpers")
    if helpers is None:
        return []
    return [manager.canvas.figure for manager in helpers.Gcf.get_all_fig_managers()]


def snapshot() -> dict[int, bool]:
    """Open figures before a run: id → whether it was already stale (never drawn since a change)."""
    return {id(figure): bool(figure.stale) for figure in _open_figures()}


def changed_figures(before: dict[int, bool]) -> list[Any]:
    changed = []
    for figure in _open_figures():
        was_stale = before.get(id(figure))
        if was_stale is None or (was_stale is False and figure.stale):
            changed.append(figure)
    return changed


def is_figure(value: Any) -> bool:
    figure_module = sys.modules.get("matplotlib.figure")
    return figure_module is not None and isinstance(value, figure_module.Figure)


def figure_png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    # savefig leaves the figure stale; marking it drawn lets the next run notice only new changes
    # (any later change to an artist sets the figure stale again through its callbacks).
    figure.stale = False
    return buffer.getvalue()
