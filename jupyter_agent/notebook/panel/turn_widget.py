"""The one widget of a turn's panel: an ``anywidget`` that mirrors a ``nodes.Document``.

Why anywidget: it is the maintained way to ship a custom widget that JupyterLab, Notebook 7,
VS Code and Colab all render without a lab extension of its own (docs/architecture.md weighs it).

What travels, and when:

* The comm_open carries a small loader (``_esm``, ~1 KB), not the front end: the front end
  (``front_end.js``) and the stylesheet are sent at most once per page, in reply to the first
  panel that finds them missing, and the page keeps them for every later turn.
* Nothing is sent before a front end says hello (its loader does, as the model opens). The hello
  is answered with the whole current state (the ``Document`` snapshot); every later change goes
  out as append-only operations, batched: ``flush()`` sends what changed since the last one.
* Operations are compressed with one deflate stream per front-end session (flushed, never
  finished), so streamed prose costs well under its own size; a front end without
  ``DecompressionStream`` says so in its hello and gets plain JSON instead. Any hello restarts
  the stream for everyone (the snapshot is sent to all front ends: comm messages are broadcast).

Events from the page (clicks, typed text, folding) arrive as ``["click", id]`` …: they are handled on
the kernel's event loop, except clicks on nodes marked ``immediate`` (Stop), which run on the
thread they arrive on (see ``controls.handle_where_sent``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading
import zlib
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as W
import traitlets

from jupyter_agent.notebook.panel.controls import handle_where_sent
from jupyter_agent.notebook.panel.nodes import Document, Op
from jupyter_agent.notebook.panel.style import stylesheet
from jupyter_agent.notebook.threads import call_on_loop

FRONT_END = (Path(__file__).with_name("front_end.js")).read_text(encoding="utf-8")
VERSION = hashlib.sha256((FRONT_END + stylesheet()).encode()).hexdigest()[:12]

# The loader: waits for the front end (sent once per page), queues messages in order meanwhile.
LOADER = """const G=(globalThis.__jupyterAgentPanel??={});
G.ready??=new Promise(r=>G.resolve=r);
async function load(v,js,css){if(G.version===v)return;
const u=URL.createObjectURL(new Blob([js],{type:"text/javascript"}));
try{const m=(await import(u)).default;m.style(new TextDecoder().decode(css));G.rt=m;G.version=v;G.resolve(m);}
finally{URL.revokeObjectURL(u);}}
export default{initialize({model}){let chain=Promise.resolve();
model.on("msg:custom",(msg,buffers)=>{chain=chain.then(async()=>{
if(msg&&msg.rt)await load(msg.rt,buffers[1],buffers[2]);
if(G.rt)await G.rt.receive(model,msg,buffers);}).catch(e=>console.error("jupyter-agent panel:",e));});
model.send(["hello",G.version??null,typeof DecompressionStream==="function"]);
return()=>{if(G.rt)G.rt.forget(model);};},
async render({model,el}){el.textContent="…";const rt=await G.ready;el.textContent="";return rt.render(model,el);}};
"""

_layout: W.Layout | None = None


def _shared_layout() -> W.Layout:
    # One Layout for every panel of the kernel: a widget per panel would open its own (~700 bytes).
    global _layout
    if _layout is None or _layout.comm is None:
        _layout = W.Layout()
    return _layout


class PanelWidget(anywidget.AnyWidget):
    _esm = LOADER
    # What the front end keys a panel's state by (the page sees each model through several proxies).
    _panel_id = traitlets.Unicode("").tag(sync=True)

    def __init__(self, document: Document) -> None:
        # A short comm id: it is repeated in every message (a uuid would be 32 characters).
        panel_id = f"ja{secrets.token_hex(6)}"
        super().__init__(layout=_shared_layout(), model_id=panel_id, _panel_id=panel_id)
        self.document = document
        self.immediate: set[int] = set()  # nodes whose clicks run on the thread they arrive on
        self._send_lock = threading.Lock()
        self._connected = False
        self._compressor: Any = None
        self._compress = True
        self._loop: asyncio.AbstractEventLoop | None
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self.on_msg(self._on_message)
        handle_where_sent(self)

    def flush(self) -> None:
        """Send the operations recorded since the last flush (nothing before a front end said hello)."""
        with self._send_lock:
            ops = self.document.take()
            if not ops or not self._connected or self.comm is None:
                return
            if self._compressor is not None:
                self._send_now("z", [self._deflate(ops)])
            else:
                self._send_now(ops, None)

    def _send_now(self, content: Any, buffers: list[bytes] | None) -> None:
        self.send(content, buffers)

    def _deflate(self, ops: list[Op]) -> bytes:
        # One line per message: the front end splits the inflated text at newlines (JSON escapes its own).
        data = json.dumps(ops, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        return bytes(self._compressor.compress(data) + self._compressor.flush(zlib.Z_SYNC_FLUSH))

    def _on_message(self, _widget: Any, content: Any, buffers: Any) -> None:
        if isinstance(content, list) and content and content[0] == "hello":
            self._hello(content)
        elif isinstance(content, list) and content and content[0] == "click" and content[1:2] and content[1] in self.immediate:
            self.document.receive(content)
        else:
            call_on_loop(self._loop, self._receive, content)

    def _receive(self, content: Any) -> None:
        self.document.receive(content)
        self.flush()  # a click usually changes the panel (a note, a disabled button)

    def _hello(self, content: list[Any]) -> None:
        version = content[1] if len(content) > 1 else None
        can_inflate = bool(content[2]) if len(content) > 2 else False
        with self._send_lock:
            self._compress = self._compress and can_inflate
            self._connected = True
            ops = self.document.snapshot()
            self._compressor = zlib.compressobj(6) if self._compress else None
            data = self._deflate(ops) if self._compressor is not None else json.dumps(ops, separators=(",", ":")).encode()
            buffers = [data]
            header: dict[str, Any] = {"s": self._compressor is not None, "rt": None}
            if version != VERSION:
                header["rt"] = VERSION
                buffers += [FRONT_END.encode(), stylesheet().encode()]
            self._send_now(header, buffers)


__all__ = ["LOADER", "PanelWidget", "VERSION"]
