// A page that shows jupyter-agent's live panels in Node: a happy-dom document, the panel
// widget's real loader (the `_esm` its comm_open carries) and, through it, the real front end
// (jupyter_agent/notebook/panel/front_end.js, as the kernel sends it). It plays anywidget's part:
// one model per panel widget, `msg:custom` for each comm message, a view rendered into the page.
//
// Used by the front end's tests (panel.test.mjs) and, through panel_page_server.mjs, by the
// Python kernel tests (tests/notebook/panel_page.py), which read the panel from this page's DOM.

import { Window } from "happy-dom";

const MODEL_NAMES = {
  html: "HTMLModel",
  button: "ButtonModel",
  textarea: "TextareaModel",
  fold: "AccordionModel",
  vbox: "VBoxModel",
  hbox: "HBoxModel",
  image: "ImageModel",
};
// The class front_end.js gives each kind of node, before the node's own classes.
const BASE_CLASSES = {
  "ja-html": ["html"],
  "ja-button": ["button"],
  "ja-textarea": ["textarea"],
  "ja-fold": ["fold"],
  "ja-image": ["image"],
  "ja-vbox": ["vbox", "ja-box"],
  "ja-hbox": ["hbox", "ja-box"],
};
const BUTTON_STYLES = new Set(["primary", "success", "info", "warning", "danger"]);
const PAGE_GLOBALS = ["document", "window", "__jupyterAgentPanel", "DecompressionStream", "Blob", "URL", "console"];

let modules = 0; // every import gets its own module instance, as every anywidget model does

function describe(value) {
  return value instanceof Error ? value.stack || String(value) : String(value);
}

function bytesOf(part) {
  if (typeof part === "string") return Buffer.from(part);
  if (ArrayBuffer.isView(part)) return Buffer.from(part.buffer, part.byteOffset, part.byteLength);
  return Buffer.from(part);
}

function moduleUrl(code) {
  modules += 1;
  return `data:text/javascript;base64,${bytesOf(code).toString("base64")}#module-${modules}`;
}

// Node cannot import blob: URLs: this page's blobs remember their parts, their URLs are data: URLs.
class PageBlob extends Blob {
  constructor(parts = [], options = {}) {
    super(parts, options);
    this.parts = parts;
  }
}

class PageURL extends URL {
  static createObjectURL(blob) {
    return moduleUrl(Buffer.concat((blob.parts || []).map(bytesOf)));
  }

  static revokeObjectURL() {}
}

// anywidget's model, as far as the loader and the front end use it.
class Model {
  constructor(page, comm, state) {
    this.page = page;
    this.comm = comm;
    this.state = { ...state };
    this.listeners = new Map();
  }

  get(key) {
    return this.state[key];
  }

  on(event, callback) {
    if (!this.listeners.has(event)) this.listeners.set(event, []);
    this.listeners.get(event).push(callback);
  }

  off(event, callback) {
    this.listeners.set(
      event,
      (this.listeners.get(event) || []).filter((known) => known !== callback),
    );
  }

  emit(event, ...args) {
    for (const callback of this.listeners.get(event) || []) callback(...args);
  }

  send(content) {
    this.page.sent.push([this.comm, content]);
  }
}

export class Page {
  // `decompression: false`: a browser without DecompressionStream.
  constructor({ decompression = true } = {}) {
    this.window = new Window({ url: "http://127.0.0.1/lab" });
    this.decompression = decompression;
    this.globals = {
      document: this.window.document,
      window: this.window,
      __jupyterAgentPanel: {}, // the loader's page-wide state
      DecompressionStream: decompression ? globalThis.DecompressionStream : undefined,
      Blob: PageBlob,
      URL: PageURL,
      // What the page's scripts report as errors (the loader and the front end catch and log them).
      console: { ...console, error: (...args) => this.errors.push(args.map(describe).join(" ")) },
    };
    this.errors = [];
    this.models = new Map(); // comm id -> {model, view, cleanup}
    this.sent = []; // [comm id, content] of every message the page sent, oldest first
    this.reported = new Map(); // comm id -> Map(node id -> JSON of the state last reported)
  }

  // Runs `work` with this page's globals in place (every page of the process shares one
  // globalThis; work is done one command at a time, each settled before the next).
  async with(work) {
    const saved = PAGE_GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]);
    for (const name of PAGE_GLOBALS) {
      Object.defineProperty(globalThis, name, { value: this.globals[name], configurable: true, writable: true });
    }
    try {
      const result = await work();
      await this.settle();
      return result;
    } finally {
      this.globals.__jupyterAgentPanel = globalThis.__jupyterAgentPanel;
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete globalThis[name];
      }
    }
  }

  // Until every message handed to the loader has been applied.
  async settle() {
    const loader = globalThis.__jupyterAgentPanel;
    for (let queue = null; loader.queue && queue !== loader.queue; ) {
      queue = loader.queue;
      await queue;
    }
  }

  // A panel widget's comm_open: its model, its loader's initialize (which says hello) and a view.
  open(comm, state) {
    return this.with(async () => {
      const model = new Model(this, comm, state);
      const loader = (await import(moduleUrl(state._esm))).default;
      const cleanup = loader.initialize({ model });
      const el = this.window.document.createElement("div");
      el.className = "jp-OutputArea-output";
      this.window.document.body.append(el);
      // The view waits for the front end (the answer to the hello brings it): not awaited.
      const view = loader.render({ model, el }).catch((error) => this.errors.push(describe(error)));
      this.models.set(comm, { model, el, view, cleanup });
      this.reported.set(comm, new Map());
    });
  }

  // One comm message of the panel's widget (anywidget: msg:custom, buffers as DataViews).
  message(comm, content, buffers = []) {
    const { model } = this.known(comm);
    const views = buffers.map((buffer) => new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength));
    return this.with(async () => model.emit("msg:custom", content, views));
  }

  // The user's part: a click, typing into a text box, opening or closing a fold.
  click(comm, id) {
    return this.with(async () => this.element(comm, id).click());
  }

  input(comm, id, text) {
    return this.with(async () => {
      const el = this.element(comm, id);
      el.value = text;
      el.dispatchEvent(new this.window.Event("input", { bubbles: true }));
    });
  }

  toggle(comm, id, open) {
    return this.with(async () => {
      const el = this.element(comm, id);
      el.open = open;
    });
  }

  // The panel widget's comm closed: the loader's cleanup, the view gone.
  close(comm) {
    const known = this.models.get(comm);
    if (!known) return Promise.resolve();
    return this.with(async () => {
      if (typeof known.cleanup === "function") known.cleanup();
      known.el.remove();
      this.models.delete(comm);
      this.reported.delete(comm);
    });
  }

  // What the user sees of each node of the panel, read from the DOM, in ipywidgets' terms
  // (the state an ipywidgets widget of that kind would have).
  nodes(comm) {
    const panel = this.panel(comm);
    if (!panel) return {};
    const ids = panel.ids();
    const idOf = new Map(ids.map((id) => [panel.element(id), id]));
    return Object.fromEntries(ids.map((id) => [id, readNode(panel.element(id), idOf)]));
  }

  // The nodes whose state changed since the last call (every node, the first time).
  changes(comm) {
    const reported = this.reported.get(comm);
    const changed = {};
    for (const [id, state] of Object.entries(this.nodes(comm))) {
      const text = JSON.stringify(state);
      if (reported.get(id) !== text) {
        reported.set(id, text);
        changed[id] = state;
      }
    }
    return changed;
  }

  // The view's element of a panel (what its root was mounted on).
  view(comm) {
    return this.known(comm).el;
  }

  // The front end's Panel of a widget (undefined before the front end has loaded).
  panel(comm) {
    const frontEnd = this.globals.__jupyterAgentPanel.frontEnd;
    return frontEnd ? frontEnd.panel(this.known(comm).model) : undefined;
  }

  known(comm) {
    const known = this.models.get(comm);
    if (!known) throw new Error(`no panel widget ${comm} on this page`);
    return known;
  }

  element(comm, id) {
    const el = this.panel(comm)?.element(id);
    if (!el) throw new Error(`panel ${comm} has no node ${id}`);
    return el;
  }
}

function readNode(el, idOf) {
  const classes = [...el.classList];
  const base = classes.find((name) => name in BASE_CLASSES);
  const [kind, ...alsoBase] = BASE_CLASSES[base] || ["box"];
  const own = classes.filter((name) => name !== base && !alsoBase.includes(name));
  const state = { _model_name: MODEL_NAMES[kind] || kind, _dom_classes: own };
  const children = (parent) => [...parent.children].map((child) => idOf.get(child)).filter((id) => id !== undefined);
  if (kind === "html") state.value = el.innerHTML;
  else if (kind === "button") {
    const style = own.at(-1)?.replace(/^ja-button-/, "");
    if (BUTTON_STYLES.has(style)) state._dom_classes = own.slice(0, -1);
    state.button_style = BUTTON_STYLES.has(style) ? style : "";
    state.description = [...el.childNodes].filter((child) => child.nodeType === 3).map((child) => child.textContent).join("");
    state.icon = el.querySelector(".ja-icon")?.textContent || "";
    state.disabled = el.disabled;
    state.tooltip = el.title;
  } else if (kind === "textarea") {
    state.value = el.value;
    state.placeholder = el.placeholder;
    state.rows = el.rows;
    state.disabled = el.disabled;
  } else if (kind === "fold") {
    const [summary, body] = el.children;
    state.titles = [summary.textContent];
    state.selected_index = el.open ? 0 : null;
    state.children = children(body);
  } else if (kind === "image") {
    const [, format, data] = /^data:image\/([^;]*);base64,(.*)$/.exec(el.getAttribute("src") || "") || [];
    state.format = format || "";
    state.value = data || "";
  } else state.children = children(el);
  return state;
}
