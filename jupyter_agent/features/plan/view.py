"""How the task plan is shown, and ``%agent plan``.

* the panel: a small checklist above the transcript, redrawn whenever the plan changes; one HTML
  node, as a plan has at most 30 short items (resending it whole costs less than a node per item);
* the static rendering: the final plan once, when the run finishes;
* the terminal: the checklist printed each time it changes (a terminal cannot redraw it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from jupyter_agent.features.plan.feature import PlanChangedEvent
from jupyter_agent.features.plan.file import PlanFile
from jupyter_agent.features.plan.state import PlanItem, plan_markdown, render_plan_text
from jupyter_agent.notebook.panel.inline import render_inline
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible
from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import Subcommand, session_argument, session_named
from jupyter_agent.notebook.views import BaseView, FeatureViews, PanelSurface, StaticSurface, TextSurface

if TYPE_CHECKING:
    import argparse

    from jupyter_agent.features.feature import FeatureEvent, TurnSession
    from jupyter_agent.notebook.magics import AgentMagics

# What the checkbox shows; the item in progress gets the CSS spinner instead of a glyph.
_MARKS = {"pending": "", "in_progress": "", "done": "✓"}
_LABELS = {"pending": "to do", "in_progress": "in progress", "done": "done"}


def plan_html(items: Sequence[PlanItem]) -> str:
    done = sum(item.status == "done" for item in items)
    rows = "".join(
        f'<li class="ja-plan-{item.status}" title="{_LABELS.get(item.status, item.status)}">'
        f'<span class="ja-check">{_MARKS.get(item.status, "")}</span>'
        f'<span class="ja-plan-text">{render_inline(item.text)}</span></li>'
        for item in items
    )
    return f'<div class="ja-plan-title">Plan · {done}/{len(items)} done</div><ul>{rows}</ul>'


class PlanView:
    def __init__(self, shared: Shared | None = None) -> None:
        self.widget = (shared or Shared()).html("", "ja-plan", HIDDEN)

    @property
    def visible(self) -> bool:
        return HIDDEN not in self.widget._dom_classes

    def show(self, plan: object) -> None:
        """``plan``: a ``PlanState`` (anything with ``items`` of id/text/status)."""
        items = list(getattr(plan, "items", ()))
        value = plan_html(items) if items else ""
        if value != self.widget.value:
            self.widget.value = value
        set_visible(self.widget, bool(items))


class PlanPanelView(BaseView[PanelSurface]):
    """Made with the panel; its checklist appears with the first plan that has items."""

    def __init__(self, surface: PanelSurface) -> None:
        super().__init__(surface)
        self.view: PlanView | None = None

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, PlanChangedEvent)
        if self.view is None:
            if not event.plan.items:
                return
            self.view = PlanView(self.surface.shared)
            self.surface.place(self.view.widget, "top")
        self.view.show(event.plan)


class PlanStaticView(BaseView[StaticSurface]):
    """Kept until the turn ends: one checklist in the output, the final one."""

    def __init__(self, surface: StaticSurface) -> None:
        super().__init__(surface)
        self.markdown = ""

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, PlanChangedEvent)
        plan = event.plan
        done = sum(item.status == "done" for item in plan.items)
        self.markdown = f"**Plan** ({done}/{len(plan.items)} done)\n\n{plan_markdown(plan)}" if plan.items else ""

    def final_markdown(self) -> str:
        return self.markdown


class PlanTextView(BaseView[TextSurface]):
    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, PlanChangedEvent)
        for line in render_plan_text(event.plan).splitlines():
            self.surface.line(self.surface.dim("  " + line))


def plan_report(session: TurnSession) -> Report:
    """``%agent plan``: the session's plan file, read afresh (it outlives the kernel)."""
    plan = PlanFile(session.path).load()
    if not plan:
        return Report(f"Session `{session.name}` has no plan yet.")
    done = sum(item.status == "done" for item in plan.items)
    heading = f"**Plan of session `{session.name}`** ({done}/{len(plan.items)} done)"
    return Report(f"{heading}\n\n{plan_markdown(plan)}", render_plan_text(plan))


def _plan(magics: AgentMagics, args: argparse.Namespace) -> Report:
    return plan_report(session_named(magics, args.session))


VIEWS = FeatureViews(
    events=("plan_changed",),
    panel=PlanPanelView,
    static=PlanStaticView,
    text=PlanTextView,
    commands=(Subcommand("plan", "The task plan of a session.", _plan, (session_argument(),)),),
)

__all__ = ["VIEWS", "PlanPanelView", "PlanStaticView", "PlanTextView", "PlanView", "plan_html", "plan_report"]
