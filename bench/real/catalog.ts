/**
 * The rows of the real-pipeline and framework benchmarks (bench/real/run.ts): what each measures, on which
 * runtimes, and how. Shared by the orchestrator and the worker; nothing in here is timed.
 * @module
 */

/** The runtimes these benchmarks run on (bench/README.md, "Real pipelines and frameworks"). */
export const RUNTIMES = ["node26", "node22", "deno", "bun"] as const;
/** One of {@link RUNTIMES}. */
export type RuntimeKey = (typeof RUNTIMES)[number];

/**
 * `inproc`: the worker times one call of the row's function (mitata, ms per iteration, lower is better).
 * `server`: the worker serves the route on 127.0.0.1 and the orchestrator drives it (req/s, higher is better).
 */
export type Kind = "inproc" | "server";

/** One benchmark row. */
export interface Row {
  /** stable id, used by --filter and in the JSON output */
  id: string;
  kind: Kind;
  /** one line, printed above the row's result */
  title: string;
  /** the runtimes the row exists on */
  runtimes: readonly RuntimeKey[];
  /** server rows: the request the load client sends */
  request?: { method: "GET" | "POST"; path: string; bodyBytes?: number };
  /** the options the `on` side passes to `patchGlobalWebStreams()` (none by default) */
  patchOptions?: { compression?: "runtime" | "batched" };
}

const ALL = RUNTIMES;
const NODE: readonly RuntimeKey[] = ["node26", "node22"];
const DENO_BUN: readonly RuntimeKey[] = ["deno", "bun"];

/** Sizes the rows share (scenarios and load client must agree). */
export const SIZES: {
  readonly htmlStrings: number;
  readonly sseEvents: number;
  readonly aiDeltas: number;
  readonly reactRows: number;
  readonly serverChunks: number;
  readonly echoBytes: number;
} = {
  /** pipeline rows: HTML strings from the source */
  htmlStrings: 4000,
  /** pipeline rows: SSE events in the native body */
  sseEvents: 4000,
  /** AI SDK rows: text deltas of the mock model */
  aiDeltas: 2000,
  /** React row: table rows rendered (5 elements each) */
  reactRows: 100,
  /** server rows: chunks per response (1 KiB each) and the echo's request body */
  serverChunks: 64,
  echoBytes: 64 * 1024,
};

/** Every row, in output order. */
export const ROWS: readonly Row[] = [
  {
    id: "pipe-html",
    kind: "inproc",
    title: "4,000 HTML strings -> 3 TransformStreams -> TextEncoderStream -> new Response(s).arrayBuffer()",
    runtimes: ALL,
  },
  {
    id: "pipe-html-gzip",
    kind: "inproc",
    title: "the same -> CompressionStream('gzip') -> new Response(s).arrayBuffer()",
    runtimes: ALL,
  },
  {
    id: "pipe-html-gzip-batched",
    kind: "inproc",
    title: "pipe-html-gzip, patched with { compression: 'batched' } (other gzip bytes than the runtime's own)",
    runtimes: ALL,
    patchOptions: { compression: "batched" },
  },
  {
    id: "pipe-sse",
    kind: "inproc",
    title:
      "native body of 4,000 SSE events -> TextDecoderStream -> parse (TransformStream) -> TextEncoderStream -> arrayBuffer()",
    runtimes: ALL,
  },
  {
    id: "ai-text",
    kind: "inproc",
    title: "AI SDK streamText (mock model, 2,000 deltas + a tool call) -> toTextStreamResponse() read to the end",
    runtimes: ALL,
  },
  {
    id: "ai-ui",
    kind: "inproc",
    title: "AI SDK streamText (the same) -> toUIMessageStreamResponse() read to the end",
    runtimes: ALL,
  },
  {
    id: "ai-sse-proxy",
    kind: "inproc",
    title:
      "OpenAI-SSE proxy: native body of 2,000 chunks -> TextDecoderStream -> EventSourceParserStream -> JSON -> TextEncoderStream -> arrayBuffer()",
    runtimes: ALL,
  },
  {
    id: "react-gzip",
    kind: "inproc",
    title: "React renderToReadableStream (100-row table, ~500 elements) -> CompressionStream('gzip') -> arrayBuffer()",
    runtimes: ALL,
  },
  {
    id: "hono-stream",
    kind: "server",
    title:
      "Hono streaming route: pull source of 64 x 1 KiB -> 1 TransformStream -> c.body() (node-server / Deno.serve / Bun.serve)",
    runtimes: ALL,
    request: { method: "GET", path: "/stream" },
  },
  {
    id: "hono-streamtext",
    kind: "server",
    title: "Hono streamText() helper: 64 writes of ~1 KB strings",
    runtimes: ALL,
    request: { method: "GET", path: "/text" },
  },
  {
    id: "hono-echo",
    kind: "server",
    title: "Hono POST echo: 64 KiB request body -> 1 TransformStream -> c.body()",
    runtimes: ALL,
    request: { method: "POST", path: "/echo", bodyBytes: SIZES.echoBytes },
  },
  {
    id: "end-fromweb",
    kind: "server",
    title: "Node end: 64 HTML strings -> 3 TransformStreams -> TextEncoderStream -> Readable.fromWeb(s).pipe(res)",
    runtimes: NODE,
    request: { method: "GET", path: "/page" },
  },
  {
    id: "end-next",
    kind: "server",
    title: "Node end: the same as a Next.js 16 route handler sends it (new Response(s), body.pipeTo(writer of res))",
    runtimes: NODE,
    request: { method: "GET", path: "/page" },
  },
  {
    id: "end-hono",
    kind: "server",
    title: "Node end: the same returned from a Hono route on @hono/node-server",
    runtimes: NODE,
    request: { method: "GET", path: "/page" },
  },
  {
    id: "end-serve",
    kind: "server",
    title: "Deno/Bun end: the same returned as new Response(s) from a Deno.serve / Bun.serve handler",
    runtimes: DENO_BUN,
    request: { method: "GET", path: "/page" },
  },
];

/** The rows on `runtime` whose id contains one of the comma-separated `filter` words (all when empty). */
export function selectRows(runtime: RuntimeKey, filter: string): Row[] {
  const needles = filter.toLowerCase().split(",").map((s) => s.trim()).filter(Boolean);
  return ROWS.filter((row) =>
    row.runtimes.includes(runtime) && (needles.length === 0 || needles.some((n) => row.id.includes(n)))
  );
}

/** Prefix of the worker's protocol lines on stdout. */
export const LINE_PREFIX = "@@real ";
/** Environment variable carrying the worker's JSON {@link WorkerConfig}. */
export const CONFIG_ENV = "FUSESTREAMS_REAL_CONFIG";

/** What the orchestrator tells one worker process. */
export interface WorkerConfig {
  runtime: RuntimeKey;
  row: string;
  /** `on`: the runtime adapter's patchGlobalWebStreams() before any framework is imported */
  patch: boolean;
  /** inproc rows: sampling time (ms), after the warm-up (`warmMs`) */
  timeMs: number;
  /** inproc rows: warm-up (ms) before sampling; undefined: a quarter of timeMs */
  warmMs?: number;
  /** take a CPU profile (node:inspector) of the measured part and report its shares */
  profile: boolean;
}

/** CPU shares of a profile, by category (see bench/real/profile.ts). */
export interface Shares {
  /** total sampled time without idle, ms */
  totalMs: number;
  /** self time per category, as a fraction of totalMs */
  self: Record<string, number>;
  /** fraction of samples with a stream frame (fusestreams or the runtime's streams) anywhere on the stack */
  inStreams: number;
}

/** A worker's protocol messages (one JSON line each, after {@link LINE_PREFIX}). */
export type WorkerMessage =
  | { type: "ready"; runtime: string; patched: boolean; note?: string }
  | { type: "listening"; port: number }
  | { type: "samples"; samples: number[]; cpuPerCallNs: number }
  | { type: "cpu"; cpuUs: number }
  | { type: "profile"; shares: Shares }
  | { type: "error"; message: string };
