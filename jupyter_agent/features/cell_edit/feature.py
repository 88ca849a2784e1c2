"""Edit with Agent as a feature: no part in turns; each request is a short read-only run of its
own, made by the notebook layer (``notebook/cell_edit.py``) with this package's prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from jupyter_agent.features.feature import Feature, FeatureTurn, TurnContext

if TYPE_CHECKING:
    from jupyter_agent.features.settings import TurnSettings


class CellEditFeature(Feature):
    name: ClassVar[str] = "cell_edit"

    def enabled(self, settings: TurnSettings) -> bool:
        return False  # an edit is its own run, asked for from a cell's toolbar

    def open(self, context: TurnContext) -> FeatureTurn:
        return FeatureTurn()


__all__ = ["CellEditFeature"]
