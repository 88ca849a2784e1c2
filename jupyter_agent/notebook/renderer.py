"""``Renderer``: what a turn is shown through, whatever the frontend.

Three renderers implement it (``notebook/panel``): ``AgentPanel`` (ipywidgets, live),
``StaticRenderer`` (plain displays for headless runs) and ``TextRenderer`` (terminal IPython).
A renderer is a pure consumer: the runner feeds it run events and states, asks it for approvals,
and installs the ``on_*`` hooks its controls call. The type checker proves every renderer has the
whole surface (the ``_conforms`` functions below).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, Union

from jupyter_agent.runtime.events import RunEvent

if TYPE_CHECKING:
    from jupyter_agent.features.delegation.child import ChildQueuedEvent, ChildStartEvent
    from jupyter_agent.features.memory.store import MemoryChange
    from jupyter_agent.features.plan.state import PlanState
    from jupyter_agent.notebook.panel.panel import AgentPanel
    from jupyter_agent.notebook.panel.static_render import StaticRenderer
    from jupyter_agent.notebook.panel.text_renderer import TextRenderer
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

    # What a sub-agent reports: its two lifecycle events, then its own run events.
    ChildEvent = Union[ChildQueuedEvent, ChildStartEvent, RunEvent]


class Renderer(Protocol):
    # Installed by the runner; the renderer's controls (Stop, Steer, Follow-up) call them.
    on_stop: Callable[[], None] | None
    on_steer: Callable[[str], bool] | None
    on_follow_up: Callable[[str], bool] | None

    def handle(self, event: RunEvent) -> None:
        """One run event; never raises (a display problem is shown, not fatal to the run)."""

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

    def show_plan(self, plan: PlanState) -> None: ...

    def memory_saved(self, *changes: MemoryChange) -> None: ...

    def child_event(self, child_id: str, event: ChildEvent) -> None: ...

    def offer_materialize(self, cells: int, materialize: Callable[[], str]) -> None:
        """A finished turn's code can become cells: a button where there are buttons."""


if TYPE_CHECKING:  # each renderer has the whole surface: checked by the type checker

    def _panel_conforms(renderer: AgentPanel) -> Renderer:
        return renderer

    def _static_conforms(renderer: StaticRenderer) -> Renderer:
        return renderer

    def _text_conforms(renderer: TextRenderer) -> Renderer:
        return renderer


__all__ = ["Renderer"]
