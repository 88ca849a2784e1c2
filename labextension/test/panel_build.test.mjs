/**
 * What the kernel sends (jupyter_agent/notebook/panel/static/) is its sources minified by
 * `jlpm build:panel`: a change to loader.js or front_end.js must be rebuilt before it ships.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const PANEL = new URL("../../jupyter_agent/notebook/panel/", import.meta.url);

describe("the panel's static files", () => {
  it.each(["loader.js", "front_end.js"])("static/%s is its source as `jlpm build:panel` minifies it", async (name) => {
    const built = await build({
      entryPoints: [fileURLToPath(new URL(name, PANEL))],
      minify: true,
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const shipped = readFileSync(new URL(`static/${name}`, PANEL), "utf8");
    expect(shipped, `static/${name} is stale: run jlpm build:panel in labextension/`).toBe(built.outputFiles[0].text);
  });
});
