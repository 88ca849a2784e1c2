// The kernel tests' page (tests/notebook/panel_page.py): one Node process per test session,
// holding one Page (panel_page.mjs) per test kernel. It reads one JSON request per line on stdin
// and answers each with one JSON line on stdout, in order:
//
//   {"page": p, "do": "open", "comm": c, "state": {...}}           a panel widget's comm_open
//   {"page": p, "do": "message", "comm": c, "content": ..., "buffers": [base64, ...]}
//   {"page": p, "do": "click" | "input", "comm": c, "node": id, "value": ...}
//   {"page": p, "do": "close", "comm": c}                          the widget's comm closed
//   {"page": p, "do": "drop"}                                      the page goes away
//
// (a page is made by its first request; "decompression": false in it makes a page without
// DecompressionStream). Every answer: {"sent": [[comm, content], ...]} (what the page sent since
// the request came: hellos, clicks, typed text), {"nodes": {id: state}} for the nodes of the
// request's panel whose state changed, and {"errors": [...]} for what the page's scripts logged
// as errors, or {"error": "..."} when the request itself failed.

import { createInterface } from "node:readline";

import { Page } from "./panel_page.mjs";

const pages = new Map();

async function handle(request) {
  if (request.do === "drop") {
    pages.delete(request.page);
    return {};
  }
  let page = pages.get(request.page);
  if (!page) {
    page = new Page({ decompression: request.decompression !== false });
    pages.set(request.page, page);
  }
  const { comm } = request;
  if (request.do === "open") await page.open(comm, request.state);
  else if (request.do === "message") {
    await page.message(comm, request.content, (request.buffers || []).map((data) => Buffer.from(data, "base64")));
  } else if (request.do === "click") await page.click(comm, request.node);
  else if (request.do === "input") await page.input(comm, request.node, request.value);
  else if (request.do === "close") await page.close(comm);
  else throw new Error(`unknown request ${JSON.stringify(request.do)}`);
  const answer = { sent: page.sent.splice(0), errors: page.errors.splice(0) };
  if (request.do !== "close") answer.nodes = page.changes(comm);
  return answer;
}

let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  queue = queue.then(async () => {
    let answer;
    try {
      answer = await handle(JSON.parse(line));
    } catch (error) {
      answer = { error: error instanceof Error ? error.stack || String(error) : String(error) };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});
lines.on("close", () => queue.then(() => process.exit(0)));
