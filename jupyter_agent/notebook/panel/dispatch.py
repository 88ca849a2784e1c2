"""Routing run events to a renderer's handlers, shared by the panel and the text renderers."""

from __future__ import annotations

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.runtime.events import RunEvent


class EventRouter:
    """``handle(event)`` calls the renderer's ``_dispatch``, which matches ``event.type``.

    Never raises: a display problem is shown with ``show_error`` and must not end the run.
    Event types a renderer does not show are ignored.
    """

    def show_error(self, text: str) -> None:  # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def _dispatch(self, event: RunEvent) -> None:  # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def handle(self, event: RunEvent) -> None:
        try:
            self._dispatch(event)
        except Exception as exc:  # noqa: BLE001 - shown instead of killing the run
            self.show_error(f"could not show a {event.type} event: {fmt.error_text(exc)}")
