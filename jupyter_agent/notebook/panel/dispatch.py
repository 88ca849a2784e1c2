"""Routing run events to a renderer's handlers, shared by the panel and the text renderers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jupyter_agent.notebook.panel import formatting as fmt


class EventRouter:
    """``handle(event)`` calls ``self._handlers[event.type]``; unknown types are ignored.

    Never raises: a display problem is shown with ``show_error`` and must not end the run.
    """

    _handlers: dict[str, Callable[[Any], None]]

    def show_error(self, text: str) -> None:  # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def handle(self, event: Any) -> None:
        handler = self._handlers.get(getattr(event, "type", None))
        if handler is None:
            return
        try:
            handler(event)
        except Exception as exc:  # noqa: BLE001 - shown instead of killing the run
            self.show_error(f"could not show a {event.type} event: {fmt.error_text(exc)}")
