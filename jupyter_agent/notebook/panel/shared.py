"""The factory of a panel's parts: every node it makes belongs to the panel's one ``Document``.

The parts (tool cards, the approval bar, the plan and memory views …) ask it for HTML, buttons,
a text box, boxes, foldable sections and images, all mirrored by the panel's single widget
(``turn_widget.PanelWidget``). Visibility is a CSS class the stylesheet hides.
"""

from __future__ import annotations

from typing import Iterable

from jupyter_agent.notebook.panel.nodes import HTML, Accordion, Button, Document, HBox, Image, Node, Textarea, VBox

HIDDEN = "ja-hide"  # the stylesheet hides nodes with this class


class Shared:
    def __init__(self, document: Document | None = None) -> None:
        self.document = document or Document()

    def html(self, value: str = "", *classes: str) -> HTML:
        return HTML(value, self.document, _dom_classes=classes)

    def button(self, description: str, **traits: object) -> Button:
        return Button(description, self.document, **traits)

    def textarea(self, **traits: object) -> Textarea:
        return Textarea(self.document, **traits)

    def vbox(self, children: Iterable[Node] = (), *classes: str) -> VBox:
        return VBox(tuple(children), self.document, _dom_classes=classes)

    def hbox(self, children: Iterable[Node] = (), *classes: str) -> HBox:
        return HBox(tuple(children), self.document, _dom_classes=classes)

    def accordion(self, child: Node, title: str, *classes: str, open: bool = False) -> Accordion:
        # Collapsed unless asked: the title says what is inside.
        return Accordion([child], self.document, titles=(title,), selected_index=0 if open else None, _dom_classes=classes)

    def image(self, data: bytes, image_format: str) -> Image:
        return Image(self.document, value=data, format=image_format)


def set_visible(widget: Node, visible: bool) -> None:
    """Show or hide through the HIDDEN class."""
    classes = tuple(name for name in widget._dom_classes if name != HIDDEN)
    widget._dom_classes = classes if visible else (*classes, HIDDEN)


def is_visible(widget: Node) -> bool:
    return HIDDEN not in widget._dom_classes
