// The agent panel's front end: builds a turn's DOM from the kernel's operations and sends the
// user's clicks, typing and folding back. The wire is declared in notebook/comm/panel_protocol.py
// (as a JSON schema: labextension/protocol/panel.schema.json). Values of HTML nodes come from the
// kernel's renderer, which escapes all untrusted text.
//
// Two ways in:
// * createPanel(send): one panel, mounted on any element (panel.mount(el)) and fed the panel
//   widget's messages (panel.receive) or plain batches of operations (panel.apply); send(event)
//   gets the user's events (["click", id], ["value", id, text], ["open", id, open]).
// * the default export: what the loader (loader.js) hands every panel widget. The kernel sends
//   this file once per page (turn_widget.py), minified (static/front_end.js, `jlpm build:panel`).
// TypeScript hosts get its types from front_end.d.ts.

const ICONS = { stop: "■", share: "↗", reply: "↩", undo: "↶", "plus-square": "+" };
const COUNTDOWN = /(?:(\d+):(\d\d)|(\d+) s) left$/; // tool_card.ToolCard.time_left's ends
const BASE_CLASS = { html: "ja-html", button: "ja-button", textarea: "ja-textarea", fold: "ja-fold", image: "ja-image" };

// The primer of this front end's version (turn_widget.PRIMER): a primed deflate stream ("p" in a
// snapshot) continues one that inflated it first. It comes with the front end, in buffer 3.
let primer = null;

export function createPanel(send) {
  return new Panel(send);
}

class Panel {
  constructor(send) {
    this.send = send;
    this.nodes = new Map(); // id -> {id, kind, props, el, body, value}
    this.root = null;
    this.host = null;
    this.inflater = null;
  }

  // One message of the panel widget (panel_protocol.PanelKernelMessage); resolves once its
  // operations are in the DOM.
  async receive(msg, buffers) {
    if (msg && typeof msg === "object" && !Array.isArray(msg) && "s" in msg) {
      if (msg.rt && buffers[3]) primer = bytesOf(buffers[3]);
      this.restart(msg.s, msg.p);
      if (msg.s) await this.inflater.write(buffers[0]);
      else this.apply(JSON.parse(new TextDecoder().decode(buffers[0])));
    } else if (msg === "z") {
      if (this.inflater) await this.inflater.write(buffers[0]);
    } else if (Array.isArray(msg)) this.apply(msg);
  }

  // A batch of operations (panel_protocol.OpBatch), in order.
  apply(ops) {
    for (const op of ops) {
      const [code, id] = op;
      if (code === "r") {
        this.root = id;
        this.attach();
        continue;
      }
      const node = code === "c" ? this.make(id, op[2]) : this.nodes.get(id);
      if (!node) continue;
      if (code === "c") this.set(node, op[3]);
      else if (code === "p") this.set(node, op[2]);
      else if (code === "a" && node.kind === "html") {
        // A negative offset counts back from the end (slice does), never -0.
        node.value = node.value.slice(0, op[2]) + op[3];
        node.el.innerHTML = node.value;
      } else if (code === "+") this.setChildren(node, op[3], op[2]);
    }
  }

  // Shows the panel in `el` until the returned function is called (or it is mounted elsewhere).
  mount(el) {
    this.host = el;
    this.attach();
    return () => {
      if (this.host === el) this.host = null;
    };
  }

  // The element of node `id` (undefined if there is none): for hosts that read the panel.
  element(id) {
    return this.nodes.get(id)?.el;
  }

  // Every node's id, in the order the nodes were made.
  ids() {
    return [...this.nodes.keys()];
  }

  dispose() {
    this.inflater?.close();
    this.inflater = null;
  }

  // A snapshot starts over: new nodes and, when compressed, a new deflate stream (primed or not).
  restart(compressed, primed) {
    this.dispose();
    this.nodes = new Map();
    this.root = null;
    if (this.host) this.host.replaceChildren();
    if (compressed) this.inflater = new Inflater((ops) => this.apply(ops), primed ? primer : null);
  }

  attach() {
    const root = this.nodes.get(this.root);
    if (root && this.host && root.el.parentNode !== this.host) this.host.replaceChildren(root.el);
  }

  make(id, kind) {
    const node = { id, kind, props: {}, el: null, body: null, value: "" };
    if (kind === "html") node.el = document.createElement("div");
    else if (kind === "button") {
      node.el = document.createElement("button");
      node.el.type = "button";
      node.el.addEventListener("click", () => this.send(["click", id]));
    } else if (kind === "textarea") {
      node.el = document.createElement("textarea");
      node.el.addEventListener("input", () => this.send(["value", id, node.el.value]));
    } else if (kind === "fold") {
      node.el = document.createElement("details");
      const summary = document.createElement("summary");
      summary.className = "ja-fold-title";
      node.body = document.createElement("div");
      node.body.className = "ja-fold-body";
      node.el.append(summary, node.body);
      node.el.addEventListener("toggle", () => {
        if (node.el.open !== Boolean(node.props.o)) {
          node.props.o = node.el.open;
          this.send(["open", id, node.el.open]);
        }
      });
    } else if (kind === "image") node.el = document.createElement("img");
    else node.el = document.createElement("div");
    this.nodes.set(id, node);
    return node;
  }

  // Properties (panel_protocol.Props) onto a node's element.
  set(node, props) {
    Object.assign(node.props, props);
    const el = node.el;
    if ("k" in props || "s" in props || !el.className) {
      const base = BASE_CLASS[node.kind] || `ja-box ja-${node.kind}`;
      const style = node.kind === "button" && node.props.s ? ` ja-button-${node.props.s}` : "";
      el.className = `${base} ${(node.props.k || []).join(" ")}${style}`;
    }
    if ("v" in props) {
      if (node.kind === "html") {
        node.value = props.v;
        el.innerHTML = props.v;
      } else if (node.kind === "textarea") {
        if (el.value !== props.v) el.value = props.v;
      } else if (node.kind === "image") {
        el.src = `data:image/${node.props.f || "png"};base64,${props.v}`;
      }
    }
    if (node.kind === "button" && ("d" in props || "i" in props)) {
      el.replaceChildren();
      const icon = ICONS[node.props.i];
      if (icon) {
        const span = document.createElement("span");
        span.className = "ja-icon";
        span.setAttribute("aria-hidden", "true");
        span.textContent = icon;
        el.append(span);
      }
      el.append(document.createTextNode(node.props.d || ""));
    }
    if ("x" in props) el.disabled = Boolean(props.x);
    if ("t" in props) {
      if (node.kind === "fold") this.title(node, props.t);
      else el.title = props.t;
    }
    if ("p" in props) el.placeholder = props.p;
    if ("r" in props) el.rows = props.r;
    if ("o" in props && node.kind === "fold") el.open = Boolean(props.o);
    if ("n" in props) this.setChildren(node, props.n);
  }

  // A running call's title ends with its time left ("27 s left", "9:58 left"). The page counts it
  // down a second at a time: while the call's code runs, it holds the kernel's loop, which sends
  // nothing until the code returns. The kernel's next title replaces the count.
  title(node, text) {
    clearInterval(node.countdown);
    const summary = node.el.firstChild;
    summary.textContent = text;
    const found = COUNTDOWN.exec(text);
    if (!found) return;
    const [, minutes, seconds, alone] = found;
    const end = Date.now() + (alone !== undefined ? +alone : +minutes * 60 + +seconds) * 1000;
    const head = text.slice(0, found.index);
    node.countdown = setInterval(() => {
      const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      if (this.nodes.get(node.id) !== node || left === 0) clearInterval(node.countdown);
      const count = left >= 60 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` : `${left} s`;
      summary.textContent = `${head}${count} left`;
    }, 1000);
  }

  // A box's children become its first `at` children (all of them when undefined: none) + `ids`.
  setChildren(node, ids, at) {
    const parent = node.body || node.el;
    const kept = at === undefined ? [] : Array.from(parent.children).slice(0, at);
    const added = ids.map((id) => this.nodes.get(id)).filter(Boolean).map((child) => child.el);
    parent.replaceChildren(...kept, ...added);
  }
}

// One deflate stream (the kernel flushes it after every message, never finishes it): each
// written piece inflates to one line of JSON, a batch of operations.
class Inflater {
  constructor(apply, primed) {
    const stream = new DecompressionStream("deflate");
    this.writer = stream.writable.getWriter();
    this.waiting = []; // resolves each write once its line is applied, in order
    this.closed = false;
    this.skip = 0; // lines inflated that are no operations (the primer's)
    if (primed) {
      this.skip = 1;
      this.writer.write(storedDeflate(primed)).catch(() => {});
    }
    this.read(stream.readable.pipeThrough(new TextDecoderStream()).getReader(), apply)
      .catch((error) => this.closed || console.error("jupyter-agent panel:", error))
      .finally(() => this.close()); // a broken stream: later writes resolve at once, nothing waits on it
  }

  async read(reader, apply) {
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this.closed) return;
      text += value;
      let end;
      while ((end = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, end);
        text = text.slice(end + 1);
        if (this.skip > 0) {
          this.skip -= 1;
          continue;
        }
        try {
          apply(JSON.parse(line));
        } catch (error) {
          console.error("jupyter-agent panel:", error);
        }
        this.waiting.shift()?.();
      }
    }
  }

  write(piece) {
    if (this.closed) return Promise.resolve();
    const applied = new Promise((resolve) => this.waiting.push(resolve));
    this.writer.write(piece).catch(() => {});
    return applied;
  }

  close() {
    this.closed = true;
    this.writer.abort().catch(() => {});
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

// The bytes of a message buffer (a DataView from the widget manager, or any view or ArrayBuffer).
function bytesOf(buffer) {
  return ArrayBuffer.isView(buffer)
    ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    : new Uint8Array(buffer);
}

// `data` as the start of a zlib stream, in stored (uncompressed) blocks, none of them final: what
// the inflater then holds is what the kernel's compressor held after compressing the same bytes,
// whatever its own encoding of them was.
function storedDeflate(data) {
  const parts = [new Uint8Array([0x78, 0x01])];
  for (let at = 0; at < data.length; at += 0xffff) {
    const size = Math.min(0xffff, data.length - at);
    parts.push(new Uint8Array([0, size & 0xff, size >> 8, ~size & 0xff, (~size >> 8) & 0xff]));
    parts.push(data.subarray(at, at + size));
  }
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

// By the panel's id: anywidget hands initialize and each render a different proxy of one model.
const panels = new Map();

function panelOf(model) {
  const key = model.get("_panel_id");
  let panel = panels.get(key);
  if (!panel) {
    panel = createPanel((event) => model.send(event));
    panels.set(key, panel);
  }
  return panel;
}

export default {
  style(css) {
    let tag = document.getElementById("jupyter-agent-panel-style");
    if (!tag) {
      tag = document.createElement("style");
      tag.id = "jupyter-agent-panel-style";
      document.head.append(tag);
    }
    tag.textContent = css;
  },
  // The Panel of a panel widget's model: mount it on another element, read its nodes.
  panel: panelOf,
  forget(model) {
    panels.get(model.get("_panel_id"))?.dispose();
    panels.delete(model.get("_panel_id"));
  },
  receive(model, msg, buffers) {
    return panelOf(model).receive(msg, buffers);
  },
  render(model, el) {
    return panelOf(model).mount(el);
  },
};
