/**
 * CPU shares of a V8/JavaScriptCore CPU profile (the `.cpuprofile` JSON that `--cpu-prof` writes on Node, Deno
 * and Bun, and that `Profiler.stop` returns through `node:inspector`), by the file a function comes from:
 *
 * | category | what |
 * | --- | --- |
 * | `fusestreams` | this repository's `mod.ts`, `core/`, `adapters/` (or `dist/`) |
 * | `runtime streams` | the runtime's own web streams, with its TextEncoderStream / TextDecoderStream / CompressionStream wrappers: Node `node:internal/webstreams/*`; Deno `ext:deno_web/*_{streams,text_encoding,compression}.js`; Bun built-in functions (no URL) whose names are its streams' |
 * | `runtime other` | the rest of the runtime's JavaScript: fetch/undici, http, node:stream, zlib, encoding, Bun's other built-ins |
 * | `framework` | anything under `node_modules/` (the AI SDK, Hono, React, eventsource-parser, mitata) |
 * | `bench` | the row's own code (`bench/`) and any other file |
 * | `gc` | `(garbage collector)` |
 * | `vm` | `(program)` and other nodes without a script: native code the profiler cannot attribute |
 *
 * Idle time and the profiler's own calls (`node:inspector`) are left out. `inStreams` is the share of samples with a `fusestreams` or `runtime streams` frame
 * anywhere on their stack: stream code and everything it calls (the transforms' own functions included).
 *
 *   node bench/real/profile.ts FILE.cpuprofile [...]   prints the shares of each file
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Shares } from "./catalog.ts";

/** The part of a `.cpuprofile` this module reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** The categories, in report order. */
export const CATEGORIES = [
  "fusestreams",
  "runtime streams",
  "runtime other",
  "framework",
  "bench",
  "gc",
  "vm",
] as const;

const ROOT_URL = pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")).href + "/";

// Bun's built-in stream functions have no URL; these are the names its streams implementation uses.
const BUN_STREAM_NAME =
  /Read|Writ|Transform|Stream|Pipe|pipe|Controller|enqueue|Enqueue|Chunk|Sink|[Tt]ee|[Pp]ull|readMany|[Dd]irect|Encoder|Decoder|Compression|Queue|Backpressure|^(read|write|close|cancel|abort|releaseLock|getReader|getWriter)$/;

// The in-process profiler's own calls (its session's `post`, which also serialises the profile at the end).
const PROFILER_URL = /^(node:inspector|ext:deno_node\/inspector\.js)$/;

function categoryOf(url: string, name: string): (typeof CATEGORIES)[number] | "idle" {
  if (PROFILER_URL.test(url)) return "idle";
  if (url === "") {
    if (name === "(idle)") return "idle";
    if (name === "(garbage collector)") return "gc";
    if (name === "(program)" || name === "(root)" || name.startsWith("(")) return "vm";
    // V8 puts no URL on a few natives too; on Bun these are its JavaScript built-ins
    if (name === "") return "vm";
    return BUN_STREAM_NAME.test(name) ? "runtime streams" : "runtime other";
  }
  if (url.startsWith(ROOT_URL)) {
    const rest = url.slice(ROOT_URL.length);
    if (rest.startsWith("node_modules/")) return "framework";
    if (/^(core|adapters|dist)\//.test(rest) || rest.startsWith("mod.ts")) return "fusestreams";
    return "bench";
  }
  if (url.includes("/node_modules/")) return "framework";
  if (url.startsWith("node:internal/webstreams/")) return "runtime streams";
  if (/^ext:deno_web\/\d+_(streams|text_encoding|compression)\.js$/.test(url)) return "runtime streams";
  if (url.startsWith("node:") || url.startsWith("ext:") || url.startsWith("builtin:")) return "runtime other";
  return "bench";
}

/** The shares of one profile (see the module documentation). */
export function sharesOf(profile: CpuProfile): Shares {
  const byId = new Map<number, CpuProfile["nodes"][number]>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const category = new Map<number, ReturnType<typeof categoryOf>>();
  for (const node of profile.nodes) category.set(node.id, categoryOf(node.callFrame.url, node.callFrame.functionName));
  // whether a stream frame is on the node's stack, memoised per node
  const streamStack = new Map<number, boolean>();
  const inStream = (id: number): boolean => {
    const known = streamStack.get(id);
    if (known !== undefined) return known;
    const c = category.get(id);
    const up = parent.get(id);
    const value = c === "fusestreams" || c === "runtime streams" || (up !== undefined && inStream(up));
    streamStack.set(id, value);
    return value;
  };
  const self: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  let total = 0;
  let streams = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    // a sample lasts until the next one; the last gets the previous interval
    const us = Math.max(0, deltas[i + 1] ?? deltas[i] ?? 0);
    const c = category.get(id) ?? "vm";
    if (c === "idle") continue;
    self[c]! += us;
    total += us;
    if (inStream(id)) streams += us;
  }
  for (const c of CATEGORIES) self[c] = total > 0 ? self[c]! / total : 0;
  return { totalMs: total / 1000, self, inStreams: total > 0 ? streams / total : 0 };
}

/** `fusestreams 12.3%, runtime streams 4.5%, ...` */
export function formatShares(shares: Shares): string {
  const parts = CATEGORIES.map((c) => `${c} ${(shares.self[c]! * 100).toFixed(1)}%`);
  return `${parts.join(", ")}; stack in streams ${(shares.inStreams * 100).toFixed(1)}% (${
    shares.totalMs.toFixed(0)
  } ms sampled)`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node bench/real/profile.ts FILE.cpuprofile [...]");
    process.exit(2);
  }
  for (const file of files) {
    const shares = sharesOf(JSON.parse(readFileSync(file, "utf8")) as CpuProfile);
    console.log(`${file}: ${formatShares(shares)}`);
  }
}
