"""Inline completion as a feature: no part in turns; the lab extension's requests are served by the
notebook layer (``notebook/completion.py``) with ``CompletionService``."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from jupyter_agent.features.feature import Feature, FeatureTurn, TurnContext

if TYPE_CHECKING:
    from jupyter_agent.features.settings import TurnSettings


class CompletionFeature(Feature):
    name: ClassVar[str] = "completion"

    def enabled(self, settings: TurnSettings) -> bool:
        return False  # it completes between turns, as the user types

    def open(self, context: TurnContext) -> FeatureTurn:
        return FeatureTurn()


__all__ = ["CompletionFeature"]
