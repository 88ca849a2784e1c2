"""A vertical list of widgets that grows cheaply.

Setting `Box.children` resends the whole list of model ids (~45 bytes each), so appending to
one flat box costs O(n²) bytes over its life. The column holds its first few children directly,
then regroups them into sub-boxes of at most `group_size`: an append resends one short list.
"""

from __future__ import annotations

import ipywidgets as W

# Why 8: a sub-box costs ~430 bytes to open; with 8 children the resent id lists average
# ~200 bytes per append, and the root list grows by one id per 8 appends.
GROUP_SIZE = 8


class GrowingColumn:
    """Append-only column of widgets; `root` is the widget to place in the tree."""

    def __init__(self, *, css_class: str, layout: W.Layout | None = None, group_size: int = GROUP_SIZE) -> None:
        self._layout = layout
        self._group_size = group_size
        self._css_class = css_class
        self.root = self._box(())
        self._groups: list[W.Box] | None = None  # None while children sit in the root directly
        self.count = 0

    def append(self, widget: W.Widget, *, keep_with_previous: bool = False) -> None:
        """Add at the end; `keep_with_previous` keeps it in the same sub-box as the last one
        (pieces of one paragraph must be siblings to flow together)."""
        self.count += 1
        if self._groups is None:
            if len(self.root.children) < self._group_size or keep_with_previous:
                self.root.children = (*self.root.children, widget)
                return
            self._groups = [self._box(self.root.children)]
            self.root.children = (self._groups[0],)
        last = self._groups[-1]
        if len(last.children) < self._group_size or keep_with_previous:
            last.children = (*last.children, widget)
            return
        group = self._box((widget,))
        self._groups.append(group)
        self.root.children = (*self.root.children, group)

    def widgets(self) -> list[W.Widget]:
        """All appended widgets in order."""
        if self._groups is None:
            return list(self.root.children)
        return [child for group in self._groups for child in group.children]

    def _box(self, children: tuple[W.Widget, ...]) -> W.VBox:
        kwargs = {"layout": self._layout} if self._layout is not None else {}
        # Classes passed at construction travel in the comm_open, not in a second update.
        return W.VBox(children, _dom_classes=(self._css_class,), **kwargs)
