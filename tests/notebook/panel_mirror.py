"""What front_end.js does with a panel widget's messages, in Python: the kernel tests' front end.

The harness says hello to every panel widget as a page would, inflates the operations it gets
and keeps each node as a ``Widget`` of its own (comm id ``<panel comm>#<node id>``) with the model
name and state an ipywidgets widget of that kind would have, so tests read text, find buttons and
click them the same way for every widget.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Callable

MODEL_NAMES = {
    "html": "HTMLModel",
    "button": "ButtonModel",
    "textarea": "TextareaModel",
    "fold": "AccordionModel",
    "vbox": "VBoxModel",
    "hbox": "HBoxModel",
    "image": "ImageModel",
}
_KEYS = {"v": "value", "d": "description", "p": "placeholder", "x": "disabled", "k": "_dom_classes", "n": "children"}


def is_panel(state: dict[str, Any]) -> bool:
    return str(state.get("_anywidget_id", "")).endswith(".PanelWidget")


class PanelMirror:
    """The nodes of one panel widget, rebuilt from its messages."""

    def __init__(self, comm_id: str, parent: str, make: Callable[[str], Any]) -> None:
        self.comm_id = comm_id
        self.parent = parent
        self._make = make  # node comm id -> harness Widget (created on first use)
        self._inflate: Any = None
        self.version: str | None = None
        self.runtime_bytes = 0
        self.last_text = ""  # the whole values of the nodes the last message changed

    def node_comm(self, node_id: int) -> str:
        return f"{self.comm_id}#{node_id}"

    def receive(self, content: Any, buffers: list[bytes]) -> None:
        if isinstance(content, dict) and "s" in content:
            self._inflate = zlib.decompressobj() if content["s"] else None
            if content.get("rt"):
                self.version = content["rt"]
                self.runtime_bytes = sum(len(b) for b in buffers[1:])
            self._decode(bytes(buffers[0]), plain=not content["s"])
        elif content == "z" and self._inflate is not None:
            self._decode(bytes(buffers[0]), plain=False)
        elif isinstance(content, list):
            self.last_text = ""
            self._run(content)

    def _decode(self, data: bytes, *, plain: bool) -> None:
        text = (data if plain else self._inflate.decompress(data)).decode()
        self.last_text = ""
        for line in text.splitlines():
            if line.strip():
                self._run(json.loads(line))

    def _run(self, ops: list[list[Any]]) -> None:
        for op in ops:
            code, node_id = op[0], op[1]
            if code == "r":
                continue
            widget = self._make(self.node_comm(node_id))
            if code == "c":
                widget.state["_model_name"] = MODEL_NAMES.get(op[2], op[2])
                self._apply(widget, op[3])
            elif code == "p":
                self._apply(widget, op[2])
            elif code == "a":
                value = widget.state.get("value", "")
                widget.state["value"] = value.encode("utf-16-le")[: 2 * op[2]].decode("utf-16-le") + op[3]
            elif code == "+":
                widget.state["children"] = widget.state.get("children", [])[: op[2]] + op[3]
            value = widget.state.get("value")
            if isinstance(value, str):
                self.last_text += value + "\n"

    @staticmethod
    def _apply(widget: Any, props: dict[str, Any]) -> None:
        for key, value in props.items():
            if key == "t":
                kind = widget.state.get("_model_name")
                widget.state["titles" if kind == "AccordionModel" else "tooltip"] = [value] if kind == "AccordionModel" else value
            elif key == "o":
                widget.state["selected_index"] = 0 if value else None
            elif key in _KEYS:
                widget.state[_KEYS[key]] = value


def node_address(comm_id: str) -> tuple[str, int] | None:
    """(panel comm id, node id) for a node's comm id, None for a real widget's."""
    panel, _, node = comm_id.partition("#")
    return (panel, int(node)) if node.isdigit() else None
