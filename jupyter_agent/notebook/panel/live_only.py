"""A part of the live panel that nothing saves: for a secret such as ``%agent serve``'s token.

The panel's content travels as comm messages, which a notebook never saves, and a reloaded page
gets it again from the kernel (the hello is answered with the whole state). The static rendering
that replaces a finished panel is built from the run's record, which never sees this part.
"""

from __future__ import annotations

from collections.abc import Callable

from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible


class LiveOnly:
    def __init__(self, shared: Shared, flush: Callable[[], None]) -> None:
        self.node = shared.html("", "ja-live-only", HIDDEN)
        self._flush = flush

    def show(self, html: str) -> None:
        """Shows ``html`` (trusted markup made by the kernel) until the panel finishes; empty hides it."""
        self.node.value = html
        set_visible(self.node, bool(html))
        self._flush()


__all__ = ["LiveOnly"]
