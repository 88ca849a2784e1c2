"""The live panel's wire: what a panel widget and its front end say to each other, as types.

A turn's panel is one anywidget (``notebook/panel/turn_widget.py``) whose front end
(``notebook/panel/front_end.js``) builds the DOM from **operations** on numbered nodes
(``notebook/panel/nodes.py`` records them). The shapes are terse on purpose: a streamed answer
sends one operation per update, and every byte of it crosses the wire. This module is their one
declaration; ``comm/schema.py`` generates the JSON schema from it, checked in as
``labextension/protocol/panel.schema.json``, which the Python tests and the front end's own tests
(``labextension/test/panel*.test.mjs``) validate what is really sent against.

Operations (JSON arrays), each idempotent (seen twice, the front end ends in the same state):

* ``["c", id, kind, props]`` creates a node; ``["p", id, props]`` sets properties;
* ``["a", id, at, text]``: an HTML node's value becomes ``value[:at] + text`` (``at`` in UTF-16
  units, as JavaScript counts; below 0, counted back from the value's end, as ``slice`` does): a
  growing text resends only what changed at its end;
* ``["+", id, at, ids]``: a box's children become ``children[:at] + ids`` (an append);
* ``["r", id]``: the node the front end shows.

Messages, kernel to page (anywidget ``msg:custom`` content, then its buffers):

* ``{"s": compressed, "rt": version, "p": primed}``, the answer to a hello: buffer 0 is the whole
  current state as a batch of operations (``Document.snapshot``), deflated when ``s`` (a new
  deflate stream starts) or plain JSON; ``rt`` names the front end in buffers 1 (its code), 2 (its
  stylesheet) and 3 (its primer: a line of JSON), sent when the page does not have that version
  yet, else ``None``. ``p``: the stream is primed, its compressor compressed the primer first and
  sent none of it (the page inflates the primer, as stored deflate blocks, before buffer 0, and
  drops its line), so what the primer holds costs a few bytes.
* ``"z"``: buffer 0 is the next flushed piece of the deflate stream, one batch of operations
  as one line of JSON.
* a batch of operations itself (a page that cannot inflate).

Page to kernel: ``["hello", version or None, can_inflate]`` when a panel's model opens, then the
user's ``["click", id]``, ``["value", id, text]`` (a text box's content) and ``["open", id, open]``
(a fold opened or closed).
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import ConfigDict, Field, with_config
from typing_extensions import NotRequired, TypedDict

NodeKind = Literal["html", "button", "textarea", "fold", "vbox", "hbox", "image"]
ButtonStyle = Literal["", "primary", "success", "info", "warning", "danger"]
NodeId = Annotated[int, Field(ge=1)]
Utf16Offset = Annotated[int, Field(ge=0, description="an offset in UTF-16 code units, as JavaScript counts")]
SpliceAt = Annotated[
    int, Field(description="an offset in UTF-16 code units, as JavaScript counts; below 0, counted back from the end")
]


# Unknown keys are refused by the schema: a key the front end does not know is a bug.
@with_config(ConfigDict(extra="forbid"))
class Props(TypedDict, total=False):
    """A node's properties on the wire; a property at its kind's default is left out."""

    v: Annotated[str, Field(description="value: HTML (html), text (textarea), base64 bytes (image)")]
    k: Annotated[list[str], Field(description="CSS classes")]
    d: Annotated[str, Field(description="a button's label")]
    x: Annotated[bool, Field(description="disabled")]
    s: Annotated[ButtonStyle, Field(description="a button's style")]
    i: Annotated[str, Field(description="a button's icon: stop, share, reply, undo, plus-square")]
    t: Annotated[str, Field(description="a button's tooltip, a fold's title")]
    p: Annotated[str, Field(description="a text box's placeholder")]
    r: Annotated[int, Field(ge=1, description="a text box's rows")]
    n: Annotated[list[NodeId], Field(description="a box's or fold's children, in order")]
    o: Annotated[bool, Field(description="a fold is open")]
    f: Annotated[str, Field(description="an image's format: png, jpeg, …")]


CreateOp = tuple[Literal["c"], NodeId, NodeKind, Props]
SetOp = tuple[Literal["p"], NodeId, Props]
SpliceOp = tuple[Literal["a"], NodeId, SpliceAt, str]
AppendOp = tuple[Literal["+"], NodeId, Annotated[int, Field(ge=0)], list[NodeId]]
RootOp = tuple[Literal["r"], NodeId]
Op = Union[CreateOp, SetOp, SpliceOp, AppendOp, RootOp]
OpBatch = list[Op]  # one message's operations, applied in order


@with_config(ConfigDict(extra="forbid"))
class Snapshot(TypedDict):
    """The answer to a hello; its buffers: the state, then (when ``rt``) the front end, its stylesheet
    and its primer."""

    s: Annotated[bool, Field(description="buffer 0 is deflated, the first piece of a new deflate stream")]
    rt: Annotated[str | None, Field(description="the version of the front end in buffers 1, 2 and 3; None: the page has it")]
    p: NotRequired[
        Annotated[bool, Field(description="the deflate stream continues one that inflated the version's primer first")]
    ]


Compressed = Literal["z"]  # buffer 0: the next piece of the deflate stream, one OpBatch as one JSON line
PanelKernelMessage = Union[Snapshot, Compressed, OpBatch]

Hello = tuple[Literal["hello"], Union[str, None], bool]  # the front end version the page has, whether it can inflate
Click = tuple[Literal["click"], NodeId]
Value = tuple[Literal["value"], NodeId, str]
Fold = tuple[Literal["open"], NodeId, bool]
PanelPageMessage = Union[Hello, Click, Value, Fold]

__all__ = [
    "AppendOp",
    "ButtonStyle",
    "Click",
    "Compressed",
    "CreateOp",
    "Fold",
    "Hello",
    "NodeId",
    "NodeKind",
    "Op",
    "OpBatch",
    "PanelKernelMessage",
    "PanelPageMessage",
    "Props",
    "RootOp",
    "SetOp",
    "Snapshot",
    "SpliceAt",
    "SpliceOp",
    "Utf16Offset",
    "Value",
]
