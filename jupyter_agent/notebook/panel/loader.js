// The panel's loader: the ES module of every panel widget. Every panel's comm_open carries it, so
// it stays small (the kernel sends it minified: static/loader.js, `jlpm build:panel`). The front
// end itself (front_end.js) comes once per page, in the buffers of the first snapshot that finds
// the page without it (turn_widget.py); until it is loaded, messages wait in order.
const page = (globalThis.__jupyterAgentPanel ??= {});
page.ready ??= new Promise((resolve) => (page.resolve = resolve));
// One queue for the page's panels: each message is applied before the next one is looked at.
page.queue ??= Promise.resolve();

async function load(version, code, css) {
  if (page.version === version) return;
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  try {
    const frontEnd = (await import(url)).default;
    frontEnd.style(new TextDecoder().decode(css));
    page.frontEnd = frontEnd;
    page.version = version;
    page.resolve(frontEnd);
  } finally {
    URL.revokeObjectURL(url);
  }
}

export default {
  initialize({ model }) {
    model.on("msg:custom", (msg, buffers) => {
      page.queue = page.queue
        .then(async () => {
          if (msg && msg.rt) await load(msg.rt, buffers[1], buffers[2]);
          if (page.frontEnd) await page.frontEnd.receive(model, msg, buffers);
        })
        .catch((error) => console.error("jupyter-agent panel:", error));
    });
    // panel_protocol.Hello: the front end this page has, and whether it can inflate.
    model.send(["hello", page.version ?? null, typeof DecompressionStream === "function"]);
    return () => page.frontEnd?.forget(model);
  },
  async render({ model, el }) {
    el.textContent = "…";
    const frontEnd = await page.ready;
    el.textContent = "";
    return frontEnd.render(model, el);
  },
};
