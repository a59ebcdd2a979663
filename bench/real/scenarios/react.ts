/**
 * React server rendering: `renderToReadableStream` (react-dom/server; React builds its stream from the global
 * ReadableStream, so with the patch on it is the adapter's) of a 100-row table -> CompressionStream("gzip") ->
 * `new Response(s).arrayBuffer()`. Imported by the worker after the patch.
 * @module
 */
import { createElement as h, Fragment, type ReactElement, type ReactNode } from "react";
import { renderToReadableStream, renderToString } from "react-dom/server";
import { gunzipSync } from "node:zlib";
import { SIZES } from "../catalog.ts";
import { checkBytes, checkGzipTrailer, crc32 } from "../data.ts";
import { drain, gzip, type InprocRow } from "./env.ts";

function Row({ i }: { i: number }): ReactNode {
  return h(
    "tr",
    { className: i % 2 === 0 ? "even" : "odd", "data-row": i },
    h("td", null, i),
    h("td", { style: { color: i % 3 === 0 ? "red" : "blue" } }, `name <${i}> & "quoted" ü€`),
    h("td", null, h(Fragment, null, "a", i % 5 === 0 ? h("b", null, "five") : null, "z")),
  );
}

/** The page the row renders: a heading and a table of `rows` rows (about five elements per row). */
export function page(rows: number): ReactElement {
  return h(
    "main",
    { id: "app" },
    h("h1", null, "Report ", rows),
    h("table", null, h("tbody", null, Array.from({ length: rows }, (_, i) => h(Row, { key: i, i })))),
  );
}

/** Builds the `react-gzip` row. */
export function build(id: string): InprocRow {
  if (id !== "react-gzip") throw new Error(`react.ts has no row ${id}`);
  const want = new TextEncoder().encode(renderToString(page(SIZES.reactRows)));
  const trailer = { crc: crc32(want), size: want.byteLength };
  const once = async () => drain((await renderToReadableStream(page(SIZES.reactRows))).pipeThrough(gzip()));
  return {
    async run() {
      checkGzipTrailer(await once(), trailer);
    },
    async verify() {
      const gz = await once();
      checkGzipTrailer(gz, trailer);
      checkBytes(new Uint8Array(gunzipSync(gz)), want, id);
    },
  };
}
