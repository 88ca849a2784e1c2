"""The one widget of a turn's panel: an ``anywidget`` that mirrors a ``nodes.Document``.

Why anywidget: it is the maintained way to ship a custom widget that JupyterLab, Notebook 7,
VS Code and Colab all render without a lab extension of its own (docs/architecture.md weighs it).

The wire (operations and messages) is declared in ``notebook/comm/panel_protocol.py``. What
travels, and when:

* The comm_open carries a small loader (``_esm``, ``static/loader.js``: ~0.8 KB), not the front
  end: the front end (``static/front_end.js``) and the stylesheet are sent at most once per page,
  in reply to the first panel that finds them missing, and the page keeps them for every later
  turn. Both are minified from their sources beside this module (``loader.js``, ``front_end.js``)
  by ``jlpm build:panel`` in ``labextension/``; the front end's tests check they are current.
* Nothing is sent before a front end says hello (its loader does, as the model opens). The hello
  is answered with the whole current state (a ``Snapshot`` header; the ``Document`` snapshot in
  its first buffer); every later change goes out as append-only operations, batched: ``flush()``
  sends what changed since the last one.
* Operations are compressed with one deflate stream per front-end session (flushed, never
  finished), so streamed prose costs well under its own size; a front end without
  ``DecompressionStream`` says so in its hello and gets plain JSON instead. Every hello restarts
  the stream for everyone (the snapshot is sent to all front ends: comm messages are broadcast).

Events from the page (clicks, typed text, folding) arrive as ``["click", id]`` …: they are handled on
the kernel's event loop, except clicks and typed text of nodes marked ``immediate`` (Stop, the
message box, Steer, Follow-up), which run on the thread they arrive on and are sent from there (see
``controls.handle_where_sent``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading
import time
import weakref
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import anywidget
import traitlets

from jupyter_agent.notebook.comm.panel_protocol import Op, PanelKernelMessage, Snapshot
from jupyter_agent.notebook.panel.controls import handle_where_sent
from jupyter_agent.notebook.panel.nodes import Document
from jupyter_agent.notebook.panel.style import stylesheet
from jupyter_agent.notebook.threads import call_on_loop

STATIC = Path(__file__).with_name("static")
# The widget's _esm. Read here rather than handed to anywidget as a path: a path's FileContents
# connects every widget to the file's change signal, which would keep every panel alive.
LOADER = (STATIC / "loader.js").read_text(encoding="utf-8")
FRONT_END = (STATIC / "front_end.js").read_text(encoding="utf-8")
# What every panel's deflate stream starts from, unsent: the operations of a typical turn (a fresh
# panel's snapshot, streamed Markdown, a tool card, the finish), one line of JSON. The page gets it
# once, with the front end, and inflates it before each stream, so a snapshot (~540 bytes
# deflated alone) and a turn's first updates cost only what differs from it. The text may be anything (it
# only shapes the compression): ``test_turn_widget`` checks it still pays.
PRIMER = (STATIC / "primer.json").read_bytes()
VERSION = hashlib.sha256(FRONT_END.encode() + stylesheet().encode() + PRIMER).hexdigest()[:12]
GREETING_POLL = 0.02  # seconds: a hello that came is seen within a frame, at ~50 wake-ups a second


class DeflateStream(Protocol):
    """What the panel uses of a ``zlib.compressobj`` (whose class zlib does not export)."""

    def compress(self, data: bytes, /) -> bytes: ...
    def flush(self, mode: int, /) -> bytes: ...
    def copy(self) -> DeflateStream: ...


class InflateStream(Protocol):
    """What a reader of the panel's stream uses of a ``zlib.decompressobj``."""

    def decompress(self, data: bytes, /) -> bytes: ...


_primed: DeflateStream | None = None


def _primed_compressor() -> DeflateStream:
    """A deflate stream that has compressed PRIMER already (its bytes, header included, are never sent)."""
    global _primed
    if _primed is None:
        _primed = zlib.compressobj(6)
        _primed.compress(PRIMER)
        _primed.flush(zlib.Z_SYNC_FLUSH)  # on a byte boundary, where the page's stored blocks of PRIMER end
    return _primed.copy()


_live_panels: weakref.WeakValueDictionary[str, PanelWidget] = weakref.WeakValueDictionary()


def _new_panel_id() -> str:
    # A short comm id: it is in every message (a uuid would be 32 characters, 24 more bytes a message).
    # Unique among the kernel's open panels; a page that still knows the id from an earlier panel
    # starts that panel over at its hello (the snapshot), so only open ones must differ.
    while True:
        panel_id = f"ja{secrets.token_hex(3)}"
        other = _live_panels.get(panel_id)
        if other is None or other.comm is None:
            return panel_id


# DOMWidget state the panel never uses, left out of its comm_open (~130 bytes a turn): the page's
# model has the same defaults, and without ``layout`` no Layout widget is opened at all.
_UNSYNCED = frozenset({"layout", "_dom_classes", "tabbable", "tooltip", "_view_count"})


def primed_decompressor() -> InflateStream:
    """An inflater in the state a page's is in before a primed stream's first piece (tests, tools)."""
    compressor = zlib.compressobj(6)
    inflater = zlib.decompressobj()
    inflater.decompress(compressor.compress(PRIMER) + compressor.flush(zlib.Z_SYNC_FLUSH))
    return inflater


class PanelWidget(anywidget.AnyWidget):
    # The traits AnyWidget would add to each instance (its loader and its id), declared once:
    # adding a trait makes a class per widget, which cost every turn's panel ~0.3 ms (add_traits).
    _esm = traitlets.Unicode(LOADER).tag(sync=True)
    _anywidget_id = traitlets.Unicode(f"{__module__}.PanelWidget").tag(sync=True)
    # What the front end keys a panel's state by (the page sees each model through several proxies).
    _panel_id = traitlets.Unicode("").tag(sync=True)

    @traitlets.default("keys")
    def _synced_keys(self) -> list[str]:
        return [name for name in self.traits(sync=True) if name not in _UNSYNCED]

    def add_traits(self, **traits: traitlets.TraitType[object, object]) -> None:
        """Adds only the traits the class lacks (AnyWidget adds its own to every instance)."""
        missing = {name: trait for name, trait in traits.items() if not self.has_trait(name)}
        if missing:
            super().add_traits(**missing)

    def __init__(self, document: Document) -> None:
        panel_id = _new_panel_id()
        super().__init__(model_id=panel_id, _panel_id=panel_id)
        _live_panels[panel_id] = self
        self.document = document
        self.immediate: set[int] = set()  # nodes whose clicks and typed text run on the thread they arrive on
        self._send_lock = threading.Lock()
        self._held = 0
        self._connected = False
        self._greeted = threading.Event()  # a front end said hello (on whichever thread it arrived)
        self._compressor: DeflateStream | None = None
        self._compress = True
        self._loop: asyncio.AbstractEventLoop | None
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self.on_msg(self._on_message)
        handle_where_sent(self)

    def __repr__(self) -> str:
        # The text/plain beside the widget view in every turn's display (and what a page without widgets shows).
        return "Agent panel"

    @contextmanager
    def held(self) -> Iterator[None]:
        """Flushes inside are put off (the caller flushes after): one message for what belongs together."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    def flush(self) -> None:
        """Send the operations recorded since the last flush (nothing before a front end said hello)."""
        if self._held:
            return
        with self._send_lock:
            ops = self.document.take()
            if not ops or not self._connected or self.comm is None:
                return
            if self._compressor is not None:
                self._send_now("z", [_deflate(self._compressor, ops)])
            else:
                self._send_now(ops, None)

    def _send_now(self, content: PanelKernelMessage, buffers: list[bytes] | None) -> None:
        self.send(content, buffers)

    async def greeted(self, limit: float) -> bool:
        """Whether a front end has said hello, waiting for it up to ``limit`` seconds.

        Polled rather than awaited on an event: the hello may be handled on a subshell's thread or,
        while this waits, on the loop itself.
        """
        deadline = time.monotonic() + limit
        while not self._greeted.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(GREETING_POLL)
        return self._greeted.is_set()

    def _on_message(self, _widget: object, content: object, buffers: object) -> None:
        if isinstance(content, list) and content and content[0] == "hello":
            self._hello(content)
        elif self._immediate(content):
            self.document.receive(content)
            self.flush()  # from this thread: the loop may be blocked by the code a click is about
        else:
            call_on_loop(self._loop, self._receive, content)

    def _immediate(self, content: object) -> bool:
        """A click on, or text typed into, a node marked ``immediate``."""
        if not isinstance(content, list) or len(content) < 2 or content[0] not in ("click", "value"):
            return False
        return isinstance(content[1], int) and content[1] in self.immediate

    def _receive(self, content: object) -> None:
        self.document.receive(content)
        self.flush()  # a click usually changes the panel (a note, a disabled button)

    def _hello(self, content: list[object]) -> None:
        version = content[1] if len(content) > 1 else None
        can_inflate = bool(content[2]) if len(content) > 2 else False
        with self._send_lock:
            self._compress = self._compress and can_inflate
            self._connected = True
            self._greeted.set()
            ops = self.document.snapshot()
            compressor = self._compressor = _primed_compressor() if self._compress else None
            data = _deflate(compressor, ops) if compressor is not None else json.dumps(ops, separators=(",", ":")).encode()
            buffers = [data]
            header: Snapshot = {"s": compressor is not None, "rt": None}
            if compressor is not None:
                header["p"] = True
            if version != VERSION:
                header["rt"] = VERSION
                buffers += [FRONT_END.encode(), stylesheet().encode(), PRIMER]
            self._send_now(header, buffers)


def _deflate(compressor: DeflateStream, ops: list[Op]) -> bytes:
    # One line per message: the front end splits the inflated text at newlines (JSON escapes its own).
    data = json.dumps(ops, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    # A partial flush makes everything so far decodable, as a sync flush does, with 3–4 bytes less
    # a message (an empty fixed block instead of an empty stored one).
    return bytes(compressor.compress(data) + compressor.flush(zlib.Z_PARTIAL_FLUSH))


__all__ = ["LOADER", "PRIMER", "PanelWidget", "VERSION", "primed_decompressor"]
