/**
 * The global patch's step for `node:stream/web`: its exports follow the globals, in CommonJS and in ESM.
 * @module
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

/**
 * node:stream/web's exports object: what `require("node:stream/web")` returns and what its ESM namespace is
 * made from (read through `require`, the object itself, as an ESM import would give a namespace of it).
 */
function streamWebExports(): Record<string, unknown> {
  return createRequire(import.meta.url)("node:stream/web") as Record<string, unknown>;
}

/**
 * Step `node:stream/web exports`: every export of `node:stream/web` that names a global the patch replaced
 * (the stream classes, the queuing strategies, and any other class a step made ours) becomes that global, so
 * `require("node:stream/web").ReadableStream === globalThis.ReadableStream` holds as it does natively; then
 * `syncBuiltinESMExports()` makes the ESM bindings (`import { ReadableStream } from "node:stream/web"`) agree.
 * The exports are put back by the transaction, and the ESM bindings synced again after that. Exports that
 * name no global (Node.js 26's `ReadableStreamTee`, used by undici) stay as they are. Runs after every step
 * that replaces globals.
 */
export function patchStreamWebExports(tx: PatchTransaction): void {
  const exports = streamWebExports();
  const g = globalThis as unknown as Record<string, unknown>;
  let changed = false;
  for (const name of Object.keys(exports)) {
    // Recorded before it is read: Node.js 20 defines some globals (TextEncoderStream...) as accessors that
    // replace themselves when first read.
    tx.record(g, name);
    const value = g[name];
    if (typeof value !== "function" || exports[name] === value) continue;
    tx.defineValue(exports, name, value);
    changed = true;
  }
  if (!changed) return;
  tx.afterRestore("the ESM exports of node:stream/web", syncBuiltinESMExports);
  syncBuiltinESMExports();
}
