"""The task plan above the transcript: a small checklist, redrawn whenever the plan changes.

One HTML widget: a plan has at most 30 short items, so resending it whole on a change costs
less than a widget per item would to open.
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.notebook.panel.inline import render_inline
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible

# What the checkbox shows; the item in progress gets the CSS spinner instead of a glyph.
_MARKS = {"pending": "", "in_progress": "", "done": "✓"}
_LABELS = {"pending": "to do", "in_progress": "in progress", "done": "done"}


def plan_html(items: list[Any]) -> str:
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

    def show(self, plan: Any) -> None:
        """``plan``: a ``PlanState`` (anything with ``items`` of id/text/status)."""
        items = list(getattr(plan, "items", ()))
        value = plan_html(items) if items else ""
        if value != self.widget.value:
            self.widget.value = value
        set_visible(self.widget, bool(items))


__all__ = ["PlanView", "plan_html"]
