"""The panel's parts as plain Python nodes, mirrored in the front end by append-only operations.

A turn's panel is one widget (``turn_widget.PanelWidget``). Its parts — text, buttons, a text box,
boxes, foldable sections, images — are nodes of a ``Document``: they keep their state in Python and
record each change as a small operation that the widget sends, batched, to the front end. The
nodes answer to the names the panel's parts used with ipywidgets (``value``, ``children``,
``_dom_classes``, ``description``, ``disabled``, ``titles``, ``selected_index``, ``on_click``), so the
parts stay widget-agnostic.

The operations and their property keys are declared in ``notebook/comm/panel_protocol.py`` (``Op``,
``Props``); this module decides which to record: a growing value becomes a splice, grown children an
append, and a property at its default is left out.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Iterable
from typing import ClassVar, cast

from jupyter_agent.notebook.comm.panel_protocol import ButtonStyle, NodeKind, Op, Props

# A value change is sent whole unless the splice saves at least this many characters.
_SPLICE_MIN_SAVING = 16
# Properties kept as tuples, whatever iterable they are given as: a tuple cannot change in place,
# so every change goes through ``set`` and is recorded.
_TUPLES = ("_dom_classes", "children", "titles")


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (compared by slices, in C)."""
    low, high = 0, min(len(a), len(b))
    if a[:high] == b[:high]:
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class Document:
    """The nodes of one panel and the operations not yet sent to the front end."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.nodes: dict[int, Node] = {}
        self._pending: list[Op] = []
        self._next_id = 0
        self.root: Node | None = None

    def set_root(self, node: Node) -> None:
        """The node the front end shows (the panel's outer box)."""
        with self.lock:
            self.root = node
            self._pending.append(("r", node.id))

    def add(self, node: Node) -> int:
        with self.lock:
            self._next_id += 1
            self.nodes[self._next_id] = node
            return self._next_id

    def emit(self, op: Op) -> None:
        with self.lock:
            self._pending.append(op)

    def take(self) -> list[Op]:
        """The operations since the last call (the caller sends them)."""
        with self.lock:
            ops, self._pending = self._pending, []
            return ops

    def snapshot(self) -> list[Op]:
        """Operations that build the whole current state on an empty front end (drops pending ones)."""
        with self.lock:
            self._pending = []
            ops: list[Op] = [("c", node.id, node.kind, node.wire_props(children=False)) for node in self.nodes.values()]
            for node in self.nodes.values():
                if node.props.get("children"):
                    children: Props = {"n": node.child_ids()}
                    ops.append(("p", node.id, children))
            if self.root is not None:
                ops.append(("r", self.root.id))
            return ops

    def receive(self, message: object) -> None:
        """A page's event (``panel_protocol.Click``, ``Value`` or ``Fold``); anything else is ignored."""
        if not isinstance(message, list) or len(message) < 2 or not isinstance(message[1], int):
            return
        node = self.nodes.get(message[1])
        if message[0] == "click" and isinstance(node, Button):
            node.click()
        elif message[0] == "value" and isinstance(node, Textarea) and len(message) > 2 and isinstance(message[2], str):
            node.props["value"] = message[2]  # the front end has it already: nothing to send back
        elif message[0] == "open" and isinstance(node, Accordion) and len(message) > 2:
            node.props["selected_index"] = 0 if message[2] else None


# Node property -> its key on the wire (``panel_protocol.Props``).
_WIRE = {
    "value": "v",
    "_dom_classes": "k",
    "description": "d",
    "disabled": "x",
    "button_style": "s",
    "icon": "i",
    "tooltip": "t",
    "titles": "t",
    "placeholder": "p",
    "rows": "r",
    "children": "n",
    "selected_index": "o",
    "format": "f",
}


class Node:
    """One part of the panel; setting a property records the change for the front end.

    Each kind declares its properties' types below its ``defaults`` (annotations only: reading one
    goes through ``__getattr__`` to ``props``, setting one through ``__setattr__``, which records it).
    """

    kind: ClassVar[NodeKind]
    defaults: ClassVar[dict[str, object]] = {}
    # Set once by __init__ (through __dict__: attribute assignment records a property change).
    id: int
    document: Document
    props: dict[str, object]
    _dom_classes: tuple[str, ...]  # CSS classes; every kind has them

    def __init__(self, document: Document | None = None, **props: object) -> None:
        unknown = set(props) - set(self.defaults) - {"_dom_classes"}
        if unknown:
            raise TypeError(f"{type(self).__name__} has no properties {sorted(unknown)}")
        self.__dict__["document"] = document or Document()
        self.__dict__["props"] = {"_dom_classes": (), **self.defaults, **props}
        for name in _TUPLES:
            if name in self.props:
                self.props[name] = self._normalize(name, self.props[name])
        self.__dict__["id"] = self.document.add(self)
        self.document.emit(("c", self.id, self.kind, self.wire_props()))

    def __getattr__(self, name: str) -> object:
        props = self.__dict__.get("props", {})
        if name in props:
            return props[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        if name not in self.props:
            raise AttributeError(f"{type(self).__name__} has no property {name!r}")
        self.set(name, value)

    def set(self, name: str, value: object) -> None:
        value = self._normalize(name, value)
        with self.document.lock:
            old = self.props[name]
            if old == value:
                return
            self.props[name] = value
            self.document.emit(self._change_op(name, old, value))

    def _normalize(self, name: str, value: object) -> object:
        if name not in _TUPLES:
            return value
        if not isinstance(value, Iterable):
            raise TypeError(f"{type(self).__name__}.{name} takes a sequence, not {type(value).__name__}")
        return tuple(value)

    def _change_op(self, name: str, old: object, value: object) -> Op:
        return ("p", self.id, cast(Props, {_WIRE[name]: self._wire(name, value)}))

    def _wire(self, name: str, value: object) -> object:
        """A property's value as ``Props`` has it (the tuples of ``_TUPLES`` are tuples since ``_normalize``)."""
        if name == "_dom_classes" and isinstance(value, tuple):
            return list(value)
        if name == "children" and isinstance(value, tuple):
            return [child.id for child in value]
        return value

    def child_ids(self) -> list[int]:
        return [child.id for child in children_of(self)]

    def wire_props(self, *, children: bool = True) -> Props:
        props = {
            _WIRE[name]: self._wire(name, value)
            for name, value in self.props.items()
            if (children or name != "children") and value != self.base_default(name)
        }
        return cast(Props, props)

    def base_default(self, name: str) -> object:
        return () if name == "_dom_classes" else self.defaults.get(name, _UNSET)


_UNSET = object()


class HTML(Node):
    kind: ClassVar[NodeKind] = "html"
    defaults: ClassVar[dict[str, object]] = {"value": ""}
    value: str

    def __init__(self, value: str = "", document: Document | None = None, **props: object) -> None:
        super().__init__(document, value=value, **props)

    def _change_op(self, name: str, old: object, value: object) -> Op:
        if name == "value" and isinstance(old, str) and isinstance(value, str):
            at = common_prefix(old, value)
            if at >= _SPLICE_MIN_SAVING:
                # Streamed HTML grows just before its closing tags: counted back from the end, the
                # offset stays the same few characters from message to message (deflate repeats it).
                start, back = utf16_length(old[:at]), utf16_length(old[at:])
                offset = -back if back and len(str(-back)) < len(str(start)) else start
                return ("a", self.id, offset, value[at:])
        return super()._change_op(name, old, value)


class Button(Node):
    kind: ClassVar[NodeKind] = "button"
    defaults: ClassVar[dict[str, object]] = {"description": "", "disabled": False, "button_style": "", "icon": "", "tooltip": ""}
    description: str
    disabled: bool
    button_style: ButtonStyle
    icon: str
    tooltip: str
    _click_handlers: list[Callable[[Button], object]]  # not a property: set through __dict__

    def __init__(self, description: str = "", document: Document | None = None, **props: object) -> None:
        super().__init__(document, description=description, **props)
        self.__dict__["_click_handlers"] = []

    def on_click(self, callback: Callable[[Button], object]) -> None:
        self._click_handlers.append(callback)

    def click(self) -> None:
        for handler in list(self._click_handlers):
            handler(self)


class Textarea(Node):
    kind: ClassVar[NodeKind] = "textarea"
    defaults: ClassVar[dict[str, object]] = {"value": "", "placeholder": "", "rows": 1, "disabled": False}
    value: str
    placeholder: str
    rows: int
    disabled: bool


class Box(Node):
    kind: ClassVar[NodeKind] = "vbox"
    defaults: ClassVar[dict[str, object]] = {"children": ()}
    children: tuple[Node, ...]

    def __init__(self, children: Iterable[Node] = (), document: Document | None = None, **props: object) -> None:
        super().__init__(document, children=tuple(children), **props)

    def _change_op(self, name: str, old: object, value: object) -> Op:
        if name == "children" and isinstance(old, tuple) and isinstance(value, tuple) and old and value[: len(old)] == old:
            return ("+", self.id, len(old), [child.id for child in value[len(old) :]])
        return super()._change_op(name, old, value)


class VBox(Box):
    kind: ClassVar[NodeKind] = "vbox"


class HBox(Box):
    kind: ClassVar[NodeKind] = "hbox"


class Accordion(Node):
    """One foldable section: ``titles[0]`` is its title, ``selected_index`` 0 when open, else None."""

    kind: ClassVar[NodeKind] = "fold"
    defaults: ClassVar[dict[str, object]] = {"children": (), "titles": ("",), "selected_index": None}
    children: tuple[Node, ...]
    titles: tuple[str, ...]
    selected_index: int | None

    def __init__(self, children: Iterable[Node] = (), document: Document | None = None, **props: object) -> None:
        super().__init__(document, children=tuple(children), **props)

    def _wire(self, name: str, value: object) -> object:
        if name == "titles" and isinstance(value, tuple):
            return value[0] if value else ""
        if name == "selected_index":
            return value == 0
        return super()._wire(name, value)

    def base_default(self, name: str) -> object:
        return ("",) if name == "titles" else super().base_default(name)


class Image(Node):
    kind: ClassVar[NodeKind] = "image"
    defaults: ClassVar[dict[str, object]] = {"value": b"", "format": "png"}
    value: bytes
    format: str

    def _wire(self, name: str, value: object) -> object:
        if name == "value" and isinstance(value, bytes):
            return base64.b64encode(value).decode("ascii")
        return super()._wire(name, value)


def walk(root: Node) -> list[Node]:
    """``root`` and every node below it, parents first."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(children_of(node)))
    return found


def children_of(node: Node) -> tuple[Node, ...]:
    """A box's or fold's children; () for a node of a kind without any."""
    children = node.props.get("children", ())
    return children if isinstance(children, tuple) else ()
