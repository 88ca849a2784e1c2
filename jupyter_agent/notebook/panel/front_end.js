// The agent panel's front end: builds a turn's DOM from the kernel's operations (see nodes.py).
// Sent by the kernel once per page (turn_widget.py); every panel of the page shares it.
// Values of HTML nodes come from the kernel's renderer, which escapes all untrusted text.

const ICONS = { stop: "■", share: "↗", reply: "↩", undo: "↶", "plus-square": "+" };
// By the panel's id: anywidget hands initialize and each render a different proxy of one model.
const states = new Map();

function stateOf(model) {
  const key = model.get("_panel_id");
  let state = states.get(key);
  if (!state) {
    state = { nodes: new Map(), root: null, host: null, generation: 0, writer: null, model };
    states.set(key, state);
  }
  return state;
}

function make(model, state, id, kind) {
  const node = { id, kind, props: {}, el: null, body: null, value: "" };
  if (kind === "html") node.el = document.createElement("div");
  else if (kind === "button") {
    node.el = document.createElement("button");
    node.el.type = "button";
    node.el.addEventListener("click", () => model.send(["click", id]));
  } else if (kind === "textarea") {
    node.el = document.createElement("textarea");
    node.el.addEventListener("input", () => model.send(["value", id, node.el.value]));
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
        model.send(["open", id, node.el.open]);
      }
    });
  } else if (kind === "image") node.el = document.createElement("img");
  else node.el = document.createElement("div");
  state.nodes.set(id, node);
  return node;
}

function baseClass(node) {
  const kind = { html: "ja-html", button: "ja-button", textarea: "ja-textarea", fold: "ja-fold", image: "ja-image" };
  return kind[node.kind] || `ja-box ja-${node.kind}`;
}

function setChildren(state, node, ids, at) {
  const parent = node.body || node.el;
  const kept = at === undefined ? [] : Array.from(parent.children).slice(0, at);
  const added = ids.map((id) => state.nodes.get(id)).filter(Boolean).map((child) => child.el);
  parent.replaceChildren(...kept, ...added);
}

function apply(state, node, props) {
  Object.assign(node.props, props);
  const el = node.el;
  if ("k" in props || "s" in props || !el.className) {
    const extra = node.kind === "button" && node.props.s ? ` ja-button-${node.props.s}` : "";
    el.className = `${baseClass(node)} ${(node.props.k || []).join(" ")}${extra}`;
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
    if (node.kind === "fold") el.firstChild.textContent = props.t;
    else el.title = props.t;
  }
  if ("p" in props) el.placeholder = props.p;
  if ("r" in props) el.rows = props.r;
  if ("o" in props && node.kind === "fold") el.open = Boolean(props.o);
  if ("n" in props) setChildren(state, node, props.n);
}

function run(state, ops) {
  for (const op of ops) {
    const [code, id] = op;
    if (code === "r") {
      state.root = id;
      attach(state);
      continue;
    }
    const node = code === "c" ? make(state.model, state, id, op[2]) : state.nodes.get(id);
    if (!node) continue;
    if (code === "c") apply(state, node, op[3]);
    else if (code === "p") apply(state, node, op[2]);
    else if (code === "a" && node.kind === "html") {
      node.value = node.value.slice(0, op[2]) + op[3];
      node.el.innerHTML = node.value;
    } else if (code === "+") setChildren(state, node, op[3], op[2]);
  }
}

function attach(state) {
  const root = state.nodes.get(state.root);
  if (root && state.host && root.el.parentNode !== state.host) state.host.replaceChildren(root.el);
}

// One inflating stream per generation: each snapshot starts a new deflate stream in the kernel.
function restart(state, compressed) {
  state.generation += 1;
  if (state.writer) state.writer.abort().catch(() => {});
  state.writer = null;
  state.nodes = new Map();
  state.root = null;
  if (state.host) state.host.replaceChildren();
  if (!compressed) return;
  const stream = new DecompressionStream("deflate");
  const generation = state.generation;
  state.writer = stream.writable.getWriter();
  const reader = stream.readable.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || generation !== state.generation) return;
      text += value;
      let end;
      while ((end = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, end);
        text = text.slice(end + 1);
        try {
          run(state, JSON.parse(line));
        } catch (error) {
          console.error("jupyter-agent panel:", error);
        }
      }
    }
  })().catch(() => {});
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
  forget(model) {
    const state = states.get(model.get("_panel_id"));
    if (state && state.writer) state.writer.abort().catch(() => {});
    states.delete(model.get("_panel_id"));
  },
  async receive(model, msg, buffers) {
    const state = stateOf(model);
    if (msg && typeof msg === "object" && !Array.isArray(msg) && "s" in msg) {
      restart(state, msg.s);
      if (msg.s) await state.writer.write(buffers[0]);
      else run(state, JSON.parse(new TextDecoder().decode(buffers[0])));
    } else if (msg === "z") {
      if (state.writer) await state.writer.write(buffers[0]);
    } else if (Array.isArray(msg)) run(state, msg);
  },
  render(model, el) {
    const state = stateOf(model);
    state.host = el;
    attach(state);
    return () => {
      if (state.host === el) state.host = null;
    };
  },
};
