"""Layout and style widgets shared by every widget of one panel.

Each ipywidgets control opens its own Layout (~950 bytes of state) and style widget unless it is
given one: a panel of ~20 controls cost 50 KB before the first token. The panel never changes a
layout (visibility is a CSS class), so one Layout and one style per kind serve all widgets.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as W
from ipywidgets.widgets.widget_button import ButtonStyle
from ipywidgets.widgets.widget_string import HTMLStyle, TextStyle

HIDDEN = "ja-hide"  # the stylesheet hides widgets with this class


class Shared:
    def __init__(self) -> None:
        self.layout = W.Layout()
        self._styles: dict[type, W.Widget] = {}

    def style(self, kind: type) -> W.Widget:
        if kind not in self._styles:
            self._styles[kind] = kind()
        return self._styles[kind]

    def html(self, value: str = "", *classes: str) -> W.HTML:
        return W.HTML(value, layout=self.layout, style=self.style(HTMLStyle), _dom_classes=classes)

    def button(self, description: str, **traits: Any) -> W.Button:
        return W.Button(description=description, layout=self.layout, style=self.style(ButtonStyle), **traits)

    def textarea(self, **traits: Any) -> W.Textarea:
        return W.Textarea(layout=self.layout, style=self.style(TextStyle), **traits)

    def vbox(self, children: Any = (), *classes: str) -> W.VBox:
        return W.VBox(tuple(children), layout=self.layout, _dom_classes=classes)

    def hbox(self, children: Any = (), *classes: str) -> W.HBox:
        return W.HBox(tuple(children), layout=self.layout, _dom_classes=classes)

    def accordion(self, child: W.Widget, title: str, *classes: str) -> W.Accordion:
        # selected_index=None: collapsed (ipywidgets opens the first child by default).
        return W.Accordion([child], titles=(title,), selected_index=None, layout=self.layout, _dom_classes=classes)

    def image(self, data: bytes, image_format: str) -> W.Image:
        return W.Image(value=data, format=image_format, layout=self.layout)


def set_visible(widget: W.DOMWidget, visible: bool) -> None:
    """Show or hide through the HIDDEN class (a layout change would need a Layout per widget)."""
    classes = tuple(name for name in widget._dom_classes if name != HIDDEN)
    widget._dom_classes = classes if visible else (*classes, HIDDEN)


def is_visible(widget: W.DOMWidget) -> bool:
    return HIDDEN not in widget._dom_classes
