"""Jupyter messages as the kernel hands them over: a comm's open, message and close (to the
target's callbacks), and the request a cell executes under (``kernel.get_parent()``).

Nothing checks their shape before they reach this package (a frontend may send anything), so they
are read through ``jupyter_message``, which makes every part present and of its type: a part that
is missing or malformed is empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from jupyter_agent.messages import JsonObject


class JupyterMessage(TypedDict):
    """A message of the Jupyter protocol (``jupyter_client``'s message spec), its parts checked."""

    header: JsonObject  # msg_id, msg_type, session (the kernel client's: one per browser tab), date …
    parent_header: JsonObject
    metadata: JsonObject  # an execute_request's: JupyterLab's ``cellId`` …
    content: JsonObject  # a comm message's: comm_id, data
    buffers: list[bytes | memoryview]


def jupyter_message(raw: object) -> JupyterMessage:
    """``raw`` (a dict as ipykernel makes it, or anything else) as a ``JupyterMessage``; its parts
    are the same objects, not copies."""
    parts = raw if isinstance(raw, Mapping) else {}
    buffers = parts.get("buffers")
    return {
        "header": _json_object(parts.get("header")),
        "parent_header": _json_object(parts.get("parent_header")),
        "metadata": _json_object(parts.get("metadata")),
        "content": _json_object(parts.get("content")),
        "buffers": list(buffers) if isinstance(buffers, list) else [],
    }


def _json_object(part: object) -> JsonObject:
    return part if isinstance(part, dict) else {}


__all__ = ["JupyterMessage", "jupyter_message"]
