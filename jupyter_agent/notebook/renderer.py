"""``Renderer``: what a turn is shown through, whatever the frontend.

Three renderers implement it (``notebook/panel``): ``AgentPanel`` (ipywidgets, live),
``StaticRenderer`` (plain displays for headless runs) and ``TextRenderer`` (terminal IPython).
A renderer is a pure consumer: the runner feeds it the turn's events and states, asks it for
approvals, and installs the ``on_*`` hooks its controls call. It knows no feature: what a feature
shows arrives as a ``FeatureEvent`` among the run's events, and the renderer hands it to the views
registered for its type (``notebook/views.py``). The type checker proves every renderer has the
whole surface (the ``_conforms`` functions below).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, Union

from jupyter_agent.features.feature import FeatureEvent
from jupyter_agent.runtime.events import RunEvent

if TYPE_CHECKING:
    from jupyter_agent.notebook.panel.panel import AgentPanel
    from jupyter_agent.notebook.panel.static_render import StaticRenderer
    from jupyter_agent.notebook.panel.text_renderer import TextRenderer
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

# What a renderer hears: the run's events and what the turn's features show.
TurnEvent = Union[RunEvent, FeatureEvent]


class Renderer(Protocol):
    # Installed by the runner; the renderer's controls (Stop, Steer, Follow-up) call them.
    on_stop: Callable[[], None] | None
    on_steer: Callable[[str], bool] | None
    on_follow_up: Callable[[str], bool] | None

    def handle(self, event: TurnEvent) -> None:
        """One event of the turn; never raises (a display problem is shown, not fatal to the run)."""

    async def ask(self, request: ApprovalRequest) -> Decision:
        """The approval prompt for a mutating tool call."""

    def set_state(self, state: str, detail: str = "") -> None: ...

    def show_error(self, text: str) -> None: ...

    def note(self, text: str) -> None:
        """A one-line note for the user; empty text clears it where it can be cleared."""

    def flush(self) -> None:
        """Show whatever is buffered now (before the turn ends, before structural changes)."""

    def finish(self) -> None:
        """The turn ended: leave what a saved notebook keeps (the panel: static outputs, no widgets)."""

    def set_model(self, label: str, context_window: int | None) -> None: ...


class FeatureEventViews(Protocol):
    """What the router uses of a renderer's ``views.Views``."""

    def handle(self, event: FeatureEvent) -> bool:
        """Passes ``event`` to the views registered for its type; False when there are none."""


class EventRouter:
    """``handle(event)`` for a renderer: a run event goes to its ``_dispatch`` (which matches
    ``event.type``), a feature's to the views registered for its type (``self.views``).

    Never raises: a display problem is shown with ``show_error`` and must not end the run.
    Event types a renderer does not show are ignored.
    """

    views: FeatureEventViews

    def show_error(self, text: str) -> None:  # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def _dispatch(self, event: RunEvent) -> None:  # pragma: no cover - every renderer defines it
        raise NotImplementedError

    def handle(self, event: TurnEvent) -> None:
        try:
            if isinstance(event, FeatureEvent):
                self.views.handle(event)
            else:
                self._dispatch(event)
        except Exception as exc:  # noqa: BLE001 - shown instead of killing the run
            from jupyter_agent.notebook.panel.formatting import error_text

            self.show_error(f"could not show a {event.type} event: {error_text(exc)}")


if TYPE_CHECKING:  # each renderer has the whole surface: checked by the type checker

    def _panel_conforms(renderer: AgentPanel) -> Renderer:
        return renderer

    def _static_conforms(renderer: StaticRenderer) -> Renderer:
        return renderer

    def _text_conforms(renderer: TextRenderer) -> Renderer:
        return renderer


__all__ = ["EventRouter", "Renderer", "TurnEvent"]
