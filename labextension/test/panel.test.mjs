/**
 * The live panel's front end, as the kernel ships it (jupyter_agent/notebook/panel/static/), run in
 * a page (panel_page.mjs) against streams recorded from a real panel (panel_streams/, recorded by
 * tests/notebook/panel_streams.py), and both directions checked against the panel's schema
 * (protocol/panel.schema.json, generated from notebook/comm/panel_protocol.py).
 */

import { readFileSync } from "node:fs";
import { createDeflate, inflateSync, constants } from "node:zlib";

import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";

import schema from "../protocol/panel.schema.json";
import { Page } from "./panel_page.mjs";

const STATIC = new URL("../../jupyter_agent/notebook/panel/static/", import.meta.url);
const LOADER = readFileSync(new URL("loader.js", STATIC), "utf8");
const FRONT_END = readFileSync(new URL("front_end.js", STATIC));
const CSS = Buffer.from(".ja-panel{display:flex}");
const STREAMS = ["turn.json", "turn-plain.json", "turn-second-page.json"];

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(schema, "panel");
const validKernelMessage = ajv.getSchema("panel#/$defs/PanelKernelMessage");
const validPageMessage = ajv.getSchema("panel#/$defs/PanelPageMessage");
const validBatch = ajv.getSchema("panel#/$defs/OpBatch");

function recorded(name) {
  const stream = JSON.parse(readFileSync(new URL(`panel_streams/${name}`, import.meta.url), "utf8"));
  for (const message of stream.messages) message.buffers = message.buffers.map((data) => Buffer.from(data, "base64"));
  return stream;
}

// A page with one panel widget whose front end has arrived (as with the first snapshot of a page).
async function pageWithPanel(comm = "ja1", options = {}) {
  const page = new Page(options);
  await page.open(comm, { _esm: LOADER, _panel_id: comm });
  await page.message(comm, { s: false, rt: "v1" }, [Buffer.from("[]"), FRONT_END, CSS]);
  return page;
}

async function replay(name) {
  const page = await pageWithPanel();
  for (const { content, buffers } of recorded(name).messages) await page.message("ja1", content, buffers);
  return page;
}

// What the final state alone builds: a page that got only the turn's last snapshot.
async function finalState(name) {
  const page = new Page();
  await page.open("ja1", { _esm: LOADER, _panel_id: "ja1" });
  await page.message("ja1", { s: false, rt: "v1" }, [Buffer.from(JSON.stringify(recorded(name).final)), FRONT_END, CSS]);
  return page;
}

function nodeWith(page, predicate) {
  const [id] = Object.entries(page.nodes("ja1")).find(([, state]) => predicate(state)) || [];
  expect(id, "a node the test looks for").toBeDefined();
  return Number(id);
}

describe("the recorded streams", () => {
  it.each(STREAMS)("%s follows the panel's schema, inflated line by line too", (name) => {
    const { messages, final } = recorded(name);
    let pieces = [];
    const batches = [];
    for (const { content, buffers } of messages) {
      expect(validKernelMessage(content), JSON.stringify(validKernelMessage.errors)).toBe(true);
      if (content === "z" || content.s === true) {
        if (content.s) pieces = [];
        pieces.push(buffers[0]);
        const text = inflateSync(Buffer.concat(pieces), { finishFlush: constants.Z_SYNC_FLUSH }).toString();
        batches.push(JSON.parse(text.trimEnd().split("\n").at(-1)));
      } else if (content.s === false) batches.push(JSON.parse(buffers[0].toString()));
      else batches.push(content);
    }
    for (const batch of [...batches, final]) expect(validBatch(batch), JSON.stringify(validBatch.errors)).toBe(true);
  });

  it.each(STREAMS)("replayed, %s ends showing what its final state alone builds", async (name) => {
    const page = await replay(name);
    const expected = await finalState(name);
    expect(page.nodes("ja1")).toEqual(expected.nodes("ja1"));
    expect(page.errors).toEqual([]);
    const shown = page.view("ja1").textContent;
    expect(shown).toContain("Revenue by region 📈");
    expect(shown).toContain("🙂 well ahead of the rest.");
    expect(shown.match(/Next I would look at <the> margins/g)).toHaveLength(3); // escaped by the kernel, text here
    expect(page.view("ja1").querySelector("img").getAttribute("src")).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(page.view("ja1").querySelector("details > summary").textContent).toBe("Thinking");
  });
});

describe("the loader", () => {
  it("says hello, shows a placeholder until the front end arrives and queues what comes meanwhile", async () => {
    const page = new Page();
    await page.open("ja1", { _esm: LOADER, _panel_id: "ja1" });
    expect(page.sent.splice(0)).toEqual([["ja1", ["hello", null, true]]]);
    expect(page.view("ja1").textContent).toBe("…");
    const { messages } = recorded("turn-plain.json");
    const [snapshot, ...rest] = messages;
    await page.message("ja1", { s: false, rt: "v1" }, [snapshot.buffers[0], FRONT_END, CSS]);
    for (const { content, buffers } of rest) await page.message("ja1", content, buffers);
    expect(page.view("ja1").textContent).toContain("Revenue by region");
    expect(page.window.document.getElementById("jupyter-agent-panel-style").textContent).toBe(CSS.toString());
    await page.open("ja2", { _esm: LOADER, _panel_id: "ja2" }); // the next turn's panel
    expect(page.sent.splice(0)).toEqual([["ja2", ["hello", "v1", true]]]);
    expect(validPageMessage(["hello", "v1", true])).toBe(true);
  });

  it("tells a kernel when the page cannot inflate", async () => {
    const page = new Page({ decompression: false });
    await page.open("ja1", { _esm: LOADER, _panel_id: "ja1" });
    expect(page.sent).toEqual([["ja1", ["hello", null, false]]]);
  });

  it("hands the front end's panel to a view closed and reopened, keeping its state", async () => {
    const page = await replay("turn.json");
    const before = page.nodes("ja1");
    await page.close("ja1");
    expect(page.window.document.body.textContent).not.toContain("Revenue by region");
    await page.open("ja1", { _esm: LOADER, _panel_id: "ja1" });
    expect(page.sent.at(-1)).toEqual(["ja1", ["hello", "v1", true]]);
    expect(page.nodes("ja1")).toEqual({}); // forgotten with the model: the kernel's snapshot rebuilds it
    await page.message("ja1", { s: false, rt: null }, [Buffer.from(JSON.stringify(recorded("turn.json").final))]);
    expect(page.nodes("ja1")).toEqual(before);
  });
});

// A kernel's deflate stream: each piece is what one flush gave.
function deflateStream() {
  const deflate = createDeflate();
  const chunks = [];
  deflate.on("data", (chunk) => chunks.push(chunk));
  return {
    async piece(text, flush = constants.Z_PARTIAL_FLUSH) {
      deflate.write(Buffer.from(text));
      await new Promise((resolve) => deflate.flush(flush, resolve));
      return Buffer.concat(chunks.splice(0));
    },
  };
}

describe("a primed stream", () => {
  it("inflates the primer first and drops its line, then the kernel's pieces refer back into it", async () => {
    const primer = JSON.stringify([["c", 1, "html", { v: "<p>a primer line that the state repeats</p>" }]]) + "\n";
    const stream = deflateStream();
    // The kernel compresses the primer, never sends it, and ends it on a byte (as the page's stored blocks do).
    await stream.piece(primer, constants.Z_SYNC_FLUSH);
    const state = [["c", 2, "html", { v: "<p>a primer line that the state repeats</p>" }], ["r", 2]];
    const snapshot = await stream.piece(JSON.stringify(state) + "\n");
    expect(snapshot.length).toBeLessThan(30); // a back reference into the primer, not the text again
    const header = { s: true, p: true, rt: "v2" };
    expect(validKernelMessage(header)).toBe(true);
    const page = new Page();
    await page.open("ja1", { _esm: LOADER, _panel_id: "ja1" });
    await page.message("ja1", header, [snapshot, FRONT_END, CSS, Buffer.from(primer)]);
    await page.message("ja1", "z", [await stream.piece(JSON.stringify([["a", 2, -4, ", and grows</p>"]]) + "\n")]);
    expect(page.nodes("ja1")[2].value).toBe("<p>a primer line that the state repeats, and grows</p>");
    expect(page.nodes("ja1")[1]).toBeUndefined(); // the primer's own line is no operation
  });
});

describe("the page's events", () => {
  it("clicks, typing and folding go back as the schema's messages; the kernel's own changes do not echo", async () => {
    const page = await pageWithPanel();
    const { messages } = recorded("turn.json");
    const [snapshot] = messages; // the turn as it starts: its controls enabled
    await page.message("ja1", snapshot.content, snapshot.buffers);
    const stop = nodeWith(page, (state) => state.description === "Stop");
    const text = nodeWith(page, (state) => state._model_name === "TextareaModel");
    await page.click("ja1", stop);
    await page.input("ja1", text, "use a bar chart");
    const body = nodeWith(page, (state) => state._dom_classes.includes("ja-body"));
    await page.message("ja1", [["c", 900, "fold", { t: "Details" }], ["+", body, page.nodes("ja1")[body].children.length, [900]]]);
    await page.toggle("ja1", 900, true);
    await page.message("ja1", [["p", 900, { o: false }]]); // closed by the kernel: nothing to say back
    const sent = page.sent.splice(0).filter(([, content]) => content[0] !== "hello");
    expect(sent).toEqual([
      ["ja1", ["click", stop]],
      ["ja1", ["value", text, "use a bar chart"]],
      ["ja1", ["open", 900, true]],
    ]);
    for (const [, content] of sent) expect(validPageMessage(content), JSON.stringify(validPageMessage.errors)).toBe(true);
    expect(page.nodes("ja1")[900].selected_index).toBe(null);
    expect(page.nodes("ja1")[text].value).toBe("use a bar chart");
  });

  it("a disabled button sends nothing", async () => {
    const page = await replay("turn.json"); // finished: the controls are disabled
    const stop = nodeWith(page, (state) => state.description === "Stop");
    expect(page.nodes("ja1")[stop].disabled).toBe(true);
    page.sent.splice(0);
    await page.click("ja1", stop);
    expect(page.sent).toEqual([]);
  });
});

describe("the schema", () => {
  it("refuses what the front end does not know", () => {
    expect(validBatch([["c", 1, "html", { v: "x" }], ["a", 1, 0, "y"], ["+", 2, 0, [1]], ["r", 2]])).toBe(true);
    expect(validBatch([["c", 1, "marquee", {}]])).toBe(false);
    expect(validBatch([["p", 1, { colour: "red" }]])).toBe(false);
    expect(validBatch([["a", 1, 0.5, "y"]])).toBe(false); // an offset counts whole UTF-16 units (below 0: from the end)
    expect(validBatch([["a", 1, -1, "y"]])).toBe(true);
    expect(validPageMessage(["click", "1"])).toBe(false);
    expect(validKernelMessage({ s: true })).toBe(false);
  });
});
