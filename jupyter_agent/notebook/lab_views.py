"""The lab extension's offer to a finished turn: its Python code as cells (a button in the panel).

``MaterializeOffered`` goes into the turn's feed when the turn ended and the extension can insert
cells (``lab_bridge``). The panel shows a "Materialize N cells" button; the saved notebook and the
terminal say how to get the code instead (``%agent materialize``), as they have no button.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from jupyter_agent.features.feature import FeatureEvent
from jupyter_agent.notebook.views import BaseView, FeatureViews, PanelSurface, StaticSurface


@dataclass
class MaterializeOffered(FeatureEvent):
    cells: int
    materialize: Callable[[], str]  # inserts the cells; says what it did
    type: Literal["materialize_offered"] = field(default="materialize_offered", init=False)


def button_label(cells: int) -> str:
    return f"Materialize {cells} cell{'s' if cells != 1 else ''}"


class MaterializePanelView(BaseView[PanelSurface]):
    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, MaterializeOffered)
        materialize = event.materialize
        button = self.surface.shared.button(
            button_label(event.cells),
            icon="plus-square",
            _dom_classes=("ja-materialize",),
            tooltip="Insert the Python code the agent ran as cells below this one",
        )
        button.on_click(lambda _button: self.surface.note(materialize()))
        self.button = button
        self.surface.place(button, "actions")


class MaterializeStaticView(BaseView[StaticSurface]):
    """The button goes with the widgets when the turn ends; the saved cell says what still works."""

    def handle(self, event: FeatureEvent) -> None:
        assert isinstance(event, MaterializeOffered)
        label = button_label(event.cells)
        self.surface.note(f'{label}: run %agent materialize, or the command "Materialize the Agent\'s Code".')


# Headless runs and the terminal have no extension to insert cells: nothing is offered there.
VIEWS = FeatureViews(events=("materialize_offered",), panel=MaterializePanelView, static=MaterializeStaticView)

__all__ = ["VIEWS", "MaterializeOffered", "MaterializePanelView", "MaterializeStaticView"]
