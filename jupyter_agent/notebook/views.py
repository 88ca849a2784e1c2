"""How features are shown: each feature's view module registers views for its event types.

A feature sends what it shows as ``FeatureEvent``s into the turn's feed (``features/feature.py``).
Renderers know none of them: each hands the events it does not know to the ``Views`` of its kind
(``views_for("panel", surface)``), which make one view per renderer for each registered type on
its first event and pass it every event of that type. A view draws through its renderer's
surface (``PanelSurface``, ``StaticSurface``, ``TextSurface``), never through the renderer itself.

A feature's view module (``Feature.view``, e.g. ``jupyter_agent.features.plan.view``) declares::

    VIEWS = FeatureViews(
        events=("plan_changed",),
        panel=PlanPanelView,      # one per panel, made on the first plan_changed
        static=PlanStaticView,    # the saved notebook's rendering (and headless runs)
        text=PlanTextView,        # terminal IPython
        commands=(Subcommand("plan", ...),),
        undo=...,                 # %agent undo: this feature's changes of a step, if it has any
        diff=...,                 # %agent diff: what it changed, as (markdown, text)
    )

The notebook layer loads those modules (``load_views``) from the feature registry, once; the
panel, the static and the text renderer import no feature.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from jupyter_agent.features.feature import FeatureEvent

if TYPE_CHECKING:
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.panel.nodes import Node
    from jupyter_agent.notebook.panel.shared import Shared
    from jupyter_agent.notebook.panel.transcript import MarkdownStream
    from jupyter_agent.notebook.report import Report
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.notebook.subcommand_parser import Subcommand

Kind = Literal["panel", "static", "text"]
Place = Literal["top", "bottom", "actions"]  # above the transcript, below it, beside the buttons
_log = logging.getLogger(__name__)


class PanelSurface(Protocol):
    """What the live panel offers a view: its node factory and places to put nodes."""

    @property
    def shared(self) -> Shared: ...

    def now(self) -> float: ...

    def place(self, node: Node, where: Place) -> None:
        """Adds ``node`` to the panel at ``where`` (after what is there already)."""

    def nest(self, tool_name: str, node: Node) -> None:
        """Puts ``node`` in the card of the running ``tool_name`` call, else at the transcript's end."""

    def stream_source(self, streams: Callable[[], list[MarkdownStream]]) -> None:
        """Text streams the panel renders with its own (at most ``MAX_LAG`` behind)."""

    def flush_text(self) -> None:
        """Renders every buffered text stream now (before a stream closes)."""

    def poke(self) -> None:
        """A stream grew: render it within the lag bound."""

    def note(self, text: str) -> None: ...

    def show_error(self, text: str) -> None: ...


class StaticSurface(Protocol):
    """What the static rendering offers: notes in the transcript."""

    def note(self, text: str) -> None: ...


class TextSurface(Protocol):
    """What the terminal offers: lines, dimmed or not."""

    def line(self, text: str) -> None: ...

    def dim(self, text: str) -> str: ...

    def note(self, text: str) -> None: ...


Surface = TypeVar("Surface")
# A view only reads its surface, so a view of a PanelSurface is a view of some surface (``Views.of``).
ViewSurface = TypeVar("ViewSurface", covariant=True)


class BaseView(Generic[ViewSurface]):
    """One renderer's view of a feature: made with the renderer's surface on the first event of
    its types, then fed every one. Override ``handle`` (and ``final_markdown``, what the static
    rendering adds once the run finished)."""

    def __init__(self, surface: ViewSurface) -> None:
        self.surface = surface

    def handle(self, event: FeatureEvent) -> None:  # pragma: no cover - every view defines it
        raise NotImplementedError

    def final_markdown(self) -> str:
        return ""


@dataclass(frozen=True)
class FeatureViews:
    """A feature's views, by renderer, for its event types; its ``%agent`` subcommands."""

    events: tuple[str, ...] = ()
    panel: Callable[[PanelSurface], BaseView[PanelSurface]] | None = None
    static: Callable[[StaticSurface], BaseView[StaticSurface]] | None = None
    text: Callable[[TextSurface], BaseView[TextSurface]] | None = None
    commands: tuple[Subcommand, ...] = ()
    # ``%agent undo [STEP]``: reverts the step's changes this feature keeps and says what it did,
    # or None when it has none for that step (the next feature in registry order is asked).
    undo: Callable[[AgentMagics, AgentSession, int | None], Report | None] | None = None
    # ``%agent diff``: what this feature changed in the session, as (markdown, text); "" when nothing.
    diff: Callable[[AgentSession], tuple[str, str]] | None = None


# Views of the notebook layer itself (not of a feature package): the lab extension's offers.
BUILTIN_VIEWS = ("jupyter_agent.notebook.lab_views",)
_LOADED: list[FeatureViews] | None = None


def load_views() -> list[FeatureViews]:
    """Every registered feature's views (and the notebook's own), imported once."""
    global _LOADED
    if _LOADED is None:
        from jupyter_agent.features.registry import FEATURES

        modules = [feature.view for feature in FEATURES if feature.view] + list(BUILTIN_VIEWS)
        _LOADED = [importlib.import_module(module).VIEWS for module in modules]
    return _LOADED


V = TypeVar("V", bound=BaseView[object])


class Views(Generic[Surface]):
    """The views of one renderer: made on the first event of their type, then fed every one."""

    def __init__(self, kind: Kind, surface: Surface) -> None:
        self.kind = kind
        self.surface = surface
        self._made: dict[int, BaseView[Surface]] = {}  # id of the FeatureViews -> this renderer's view

    def handle(self, event: FeatureEvent) -> bool:
        """Passes ``event`` to the views registered for its type; False when there are none."""
        handled = False
        for views in load_views():
            if event.type not in views.events:
                continue
            view = self._view(views)
            if view is not None:
                view.handle(event)
                handled = True
        return handled

    def of(self, kind: type[V]) -> V | None:
        """This renderer's view of class ``kind``, if an event made it (tests, debugging)."""
        return next((view for view in self._made.values() if isinstance(view, kind)), None)

    def final_markdown(self) -> list[str]:
        """What each view made so far adds at the end of the run, in registry order."""
        return [text for view in self._made.values() if (text := view.final_markdown())]

    def _view(self, views: FeatureViews) -> BaseView[Surface] | None:
        made = self._made.get(id(views))
        if made is None:
            make = getattr(views, self.kind)
            if make is None:
                return None
            made = self._made[id(views)] = make(self.surface)
        return made


def commands() -> list[Subcommand]:
    """The ``%agent`` subcommands the views declare, in registry order."""
    return [command for views in load_views() for command in views.commands]


def diff_sections(session: AgentSession) -> list[tuple[str, str]]:
    """What each feature says ``%agent diff`` shows of ``session`` (the non-empty ones), in registry order."""
    sections = [views.diff(session) for views in load_views() if views.diff is not None]
    return [section for section in sections if section[0]]


def undo_handlers() -> list[Callable[[AgentMagics, AgentSession, int | None], Report | None]]:
    """What ``%agent undo`` asks, in registry order."""
    return [views.undo for views in load_views() if views.undo is not None]


__all__ = [
    "BUILTIN_VIEWS",
    "BaseView",
    "FeatureViews",
    "PanelSurface",
    "StaticSurface",
    "TextSurface",
    "Views",
    "commands",
    "diff_sections",
    "load_views",
    "undo_handlers",
]
