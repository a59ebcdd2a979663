/**
 * The test worker for the edge adapter: bundled with esbuild (tests/edge/bundle.ts) together with the edge
 * entry (adapters/edge/mod.ts) and run in real workerd (miniflare) and in edge-runtime. Each route does
 * one thing with the adapter and answers with the bytes it produced or with what it observed (JSON);
 * tests/edge/edge.test.ts makes the requests and asserts. Web-standard globals only.
 *
 * Routes (query parameters in brackets):
 *   /state                        which runtime, whether patched
 *   /patch, /unpatch              patchGlobalWebStreams() (after a snapshot of every global and
 *                                 prototype), unpatchGlobalWebStreams() and the difference to that snapshot
 *   /patch-fail                   makes `fetch` unchangeable, then patches: the patch must fail whole
 *   /out [n, size, via]           our stream of n chunks through 3 of our transforms as the response body
 *   /in [via] (POST)              the request body through 3 of our transforms, streamed back
 *   /fetch [echo, n, size, via]   fetch(echo, { body: ours }), its response body through 3 of ours, back
 *   /clone-response [n, size]     new Response(ours).clone(): one read here, the clone streamed back
 *   /clone-request [n, size] (POST)  request.clone() and new Request(url, { body: ours }).clone()
 *   /bad-chunk [kind, where, via] a chunk that is not a BufferSource, read here or streamed back
 *   /bad-state [state, target]    a locked or disturbed stream given to Response / Request / fetch
 *   /consume                      text() / arrayBuffer() / bytes() / json() of new Response(ours) vs native
 *   /instanceof                   instanceof both ways, bodies, pipes between native and ours
 *   /to-native [case]             toNativeReadableStream(): backpressure, cancel, errors
 *   /body-lock                    bodies locked by a reader of response.body: text(), clone()... (the
 *                                 global classes: ours while patched, native before)
 *   /iterable-body                a generator as a Response/Request body: what text() gives (compared with
 *                                 the answer before the patch)
 *   /init-members                 new Request(url, init) with a body of ours: init's inherited, non-enumerable
 *                                 and getter members are read as for a native body
 *   /body-cancel                  a body read once, then cancelled: the reason the source sees, what
 *                                 cancel() gives (the global classes: ours while patched, native before)
 *   /codec-through                a native stream or a body piped through our (global) CompressionStream /
 *                                 DecompressionStream while patched: NATIVE-CODEC-THROUGH taken or not, bytes,
 *                                 locks, errors and cancel
 *   /codec-handback               a stream of ours through our (global) DecompressionStream into new Response():
 *                                 NATIVE-CODEC-HANDBACK taken or not, bytes, errors (as the runtime's own classes)
 *   /contract                     the adapter contract suite (tests/shared/contract-suite.ts) run here, case
 *                                 by case: passed, failed (with the message) or skipped (with the reason)
 *   /compression                  the same for tests/shared/compression-suite.ts (our CompressionStream and
 *                                 DecompressionStream, the runtime's own streams as their codec)
 *
 * `via`: "patch" hands our streams to the runtime as they are (the patch must be on), "native" converts
 * them with toNativeReadableStream() (no patch), "global" builds them with the global constructors
 * (ours while patched).
 * @module
 */
import * as edge from "../../adapters/edge/mod.ts";
import { joinBytes } from "../../adapters/kit/join-bytes.ts";
import { isBodyShell } from "../../adapters/kit/body-shells.ts";
import { claimBatchedBody } from "../../adapters/kit/batched-body-bridge.ts";
import { bodyMadeFor } from "../../adapters/kit/to-native.ts";
import { BYTEWISE_STAGES, chunkAt, digest, STAGES } from "./data.ts";
import { diffSnapshot, type Snapshot, takeSnapshot } from "../shared/snapshot.ts";
import { lockedBodyOutcomes, lockedRequestOutcomes } from "../shared/body-lock.ts";
import { describeRequest, INIT_CASES } from "../shared/request-inits.ts";
import { type Registrar, runtimeAdapterSuite } from "../shared/contract-suite.ts";
import { compressionSuite, cut } from "../shared/compression-suite.ts";

type Bytes = Uint8Array<ArrayBuffer>;
type Stage = (chunk: Uint8Array) => Uint8Array;
type Stream = globalThis.ReadableStream<Bytes>;

/** The runtime's own classes, taken before anything could patch them. */
const Native = {
  ReadableStream: globalThis.ReadableStream,
  WritableStream: globalThis.WritableStream,
  TransformStream: globalThis.TransformStream,
  Response: globalThis.Response,
  Request: globalThis.Request,
  CompressionStream: globalThis.CompressionStream,
  DecompressionStream: globalThis.DecompressionStream,
};

const copy: Stage = (c) => c.slice();

/**
 * The snapshot taken by /patch (held in an object: a bundle evaluated as a classic script makes its top-level
 * variables globals, and the snapshot must not see its own variable change).
 */
const saved: { before: Snapshot | undefined } = { before: undefined };

function json(value: unknown, status = 200): Response {
  return new Native.Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

function errorInfo(e: unknown): { name: string; message: string } {
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: typeof e, message: String(e) };
}

function int(url: URL, name: string, fallback: number): number {
  const v = url.searchParams.get(name);
  return v === null ? fallback : Number(v);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The constructors a route builds with: fusestreams' own, or whatever the globals are now. */
function classes(via: string): { RS: typeof edge.ReadableStream; TS: typeof edge.TransformStream } {
  if (via === "global") {
    return {
      RS: globalThis.ReadableStream as unknown as typeof edge.ReadableStream,
      TS: globalThis.TransformStream as unknown as typeof edge.TransformStream,
    };
  }
  return { RS: edge.ReadableStream, TS: edge.TransformStream };
}

/** `n` chunks of `size` bytes (chunkAt), one per pull. */
function source(RS: typeof edge.ReadableStream, n: number, size: number): edge.ReadableStream<Bytes> {
  let i = 0;
  return new RS<Bytes>({
    pull(c) {
      if (i === n) c.close();
      else c.enqueue(chunkAt(i++, size) as Bytes);
    },
  });
}

function chain(
  TS: typeof edge.TransformStream,
  from: edge.ReadableStream<Bytes>,
  stages: readonly Stage[],
): edge.ReadableStream<Bytes> {
  let out = from;
  for (const stage of stages) {
    out = out.pipeThrough(
      new TS<Bytes, Bytes>({
        transform(chunk, controller) {
          controller.enqueue(stage(chunk) as Bytes);
        },
      }),
    );
  }
  return out;
}

/** What the runtime gets: our stream itself (patch, global) or its native conversion. */
function handOver(stream: edge.ReadableStream<Bytes>, via: string): Stream {
  if (via === "native") return edge.toNativeReadableStream(stream) as Stream;
  return stream as unknown as Stream;
}

async function bytesOf(body: Stream | edge.ReadableStream<Bytes> | null): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    parts.push(chunk);
    length += chunk.byteLength;
  }
  return joinBytes(parts, length);
}

function isOurs(x: unknown): boolean {
  return edge.readableStreamState(x) !== undefined;
}

function runtimeName(): string {
  if (typeof (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime === "string") return "edge-light";
  const ua = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent;
  return ua === "Cloudflare-Workers" ? "workerd" : `unknown (${ua})`;
}

// ---------------------------------------------------------------------------------------------------

function state(): Response {
  return json({
    runtime: runtimeName(),
    patched: edge.isGlobalWebStreamsPatched(),
    globalIsOurs: globalThis.ReadableStream === (edge.ReadableStream as unknown),
  });
}

function patch(): Response {
  const before = saved.before = takeSnapshot({ edge });
  try {
    edge.patchGlobalWebStreams();
    return json({ ok: true, patched: edge.isGlobalWebStreamsPatched() });
  } catch (e) {
    return json({
      ok: false,
      error: errorInfo(e),
      patched: edge.isGlobalWebStreamsPatched(),
      diff: diffSnapshot(before, takeSnapshot({ edge })),
    });
  }
}

function unpatch(): Response {
  const before = saved.before;
  if (before === undefined) return json({ error: "no snapshot: /patch first" }, 400);
  edge.unpatchGlobalWebStreams();
  const diff = diffSnapshot(before, takeSnapshot({ edge }));
  saved.before = undefined;
  return json({
    patched: edge.isGlobalWebStreamsPatched(),
    globalIsOurs: globalThis.ReadableStream === (edge.ReadableStream as unknown),
    diff,
  });
}

/** Makes the global `fetch` unchangeable (for the rest of this isolate's life), then patches. */
function patchFail(): Response {
  Object.defineProperty(globalThis, "fetch", { value: globalThis.fetch, writable: false, configurable: false });
  const snap = takeSnapshot({ edge });
  let error: { name: string; message: string } | undefined;
  try {
    edge.patchGlobalWebStreams();
  } catch (e) {
    error = errorInfo(e);
  }
  return json({ error, patched: edge.isGlobalWebStreamsPatched(), diff: diffSnapshot(snap, takeSnapshot({ edge })) });
}

function out(url: URL): Response {
  const via = url.searchParams.get("via") ?? "patch";
  const { RS, TS } = classes(via);
  const body = chain(TS, source(RS, int(url, "n", 64), int(url, "size", 1024)), STAGES);
  return new Response(handOver(body, via));
}

function inRoute(request: Request, url: URL): Response {
  const via = url.searchParams.get("via") ?? "patch";
  const { RS, TS } = classes(via);
  const from = via === "native"
    ? RS.from(request.body as unknown as AsyncIterable<Bytes>)
    : (request.body as unknown as edge.ReadableStream<Bytes>);
  return new Response(handOver(chain(TS, from, [...BYTEWISE_STAGES, copy]), via), {
    headers: { "x-body-is-ours": String(isOurs(request.body)) },
  });
}

async function fetchRoute(url: URL): Promise<Response> {
  const via = url.searchParams.get("via") ?? "patch";
  const { RS, TS } = classes(via);
  const echo = url.searchParams.get("echo")!;
  const body = handOver(chain(TS, source(RS, int(url, "n", 64), int(url, "size", 1024)), STAGES), via);
  const init = { method: "POST", body, duplex: "half" } as RequestInit;
  const res = await fetch(echo, init);
  const from = via === "native"
    ? RS.from(res.body as unknown as AsyncIterable<Bytes>)
    : (res.body as unknown as edge.ReadableStream<Bytes>);
  return new Response(handOver(chain(TS, from, [...BYTEWISE_STAGES, copy]), via), {
    headers: { "x-body-is-ours": String(isOurs(res.body)) },
  });
}

async function cloneResponse(url: URL): Promise<Response> {
  const body = chain(
    edge.TransformStream,
    source(edge.ReadableStream, int(url, "n", 64), int(url, "size", 1024)),
    STAGES,
  );
  const first = new Response(body as unknown as Stream);
  const second = first.clone();
  const read = digest(new Uint8Array(await first.arrayBuffer()));
  return new Response(second.body, { headers: { "x-first": read, "x-body-is-ours": String(isOurs(second.body)) } });
}

async function cloneRequest(request: Request, url: URL): Promise<Response> {
  const copyOfIncoming = request.clone();
  const [a, b] = await Promise.all([
    bytesOf(
      chain(edge.TransformStream, request.body as unknown as edge.ReadableStream<Bytes>, [...BYTEWISE_STAGES, copy]),
    ),
    bytesOf(copyOfIncoming.body),
  ]);
  const body = chain(
    edge.TransformStream,
    source(edge.ReadableStream, int(url, "n", 64), int(url, "size", 1024)),
    STAGES,
  );
  const made = new Request(
    "http://example.invalid/",
    { method: "POST", body: body as unknown as Stream, duplex: "half" } as RequestInit,
  );
  const madeCopy = made.clone();
  const [c, d] = await Promise.all([made.arrayBuffer(), madeCopy.arrayBuffer()]);
  return json({
    incoming: digest(a),
    incomingClone: digest(b),
    made: digest(new Uint8Array(c)),
    madeClone: digest(new Uint8Array(d)),
  });
}

const BAD: Record<string, unknown> = { string: "abc", number: 42, object: { a: 1 }, array: [1, 2, 3] };

async function badChunk(url: URL): Promise<Response> {
  const kind = url.searchParams.get("kind") ?? "string";
  const where = url.searchParams.get("where") ?? "text";
  const via = url.searchParams.get("via") ?? "patch";
  const make = (RS: new (source: UnderlyingDefaultSource<unknown>) => unknown): Stream =>
    new RS({
      start(c) {
        c.enqueue(new TextEncoder().encode("first,"));
        c.enqueue(BAD[kind]);
        c.close();
      },
    }) as Stream;
  const ours = via === "native"
    ? (edge.toNativeReadableStream(make(edge.ReadableStream) as never) as Stream)
    : make(edge.ReadableStream);
  if (where === "out") return new Response(ours);
  const outcome = async (s: Stream) => {
    try {
      return { value: await new Response(s).text() };
    } catch (e) {
      return errorInfo(e);
    }
  };
  return json({ ours: await outcome(ours), native: await outcome(make(Native.ReadableStream)) });
}

/**
 * `text()`, `arrayBuffer()`, `bytes()`, `json()` of `new Response(stream)` for our stream and for a native
 * one with the same chunks: the value (as text), `bodyUsed` after, and what a second call does.
 */
async function consume(): Promise<Response> {
  const text = '{"greeting":"hello","n":[1,2,3]}';
  const pieces = [text.slice(0, 7), text.slice(7, 20), text.slice(20)].map((p) => new TextEncoder().encode(p));
  const outcome = async (RS: new (source: UnderlyingDefaultSource<Uint8Array>) => unknown, method: string) => {
    const r = new Response(
      new RS({
        start(c) {
          for (const p of pieces) c.enqueue(p.slice());
          c.close();
        },
      }) as Stream,
    );
    const call = (): Promise<unknown> => (r as unknown as Record<string, () => Promise<unknown>>)[method]!.call(r);
    const value = await call();
    const asText = typeof value === "string"
      ? value
      : value instanceof ArrayBuffer || ArrayBuffer.isView(value)
      ? new TextDecoder().decode(value as ArrayBuffer)
      : JSON.stringify(value);
    const used = r.bodyUsed;
    const again = await call().then(() => "resolved", (e) => `${errorInfo(e).name}`);
    return { asText, used, again };
  };
  const out: Record<string, unknown> = {};
  for (const method of ["text", "arrayBuffer", "bytes", "json"]) {
    if (typeof (Native.Response.prototype as unknown as Record<string, unknown>)[method] !== "function") continue;
    out[method] = {
      ours: await outcome(edge.ReadableStream as never, method),
      native: await outcome(Native.ReadableStream as never, method),
    };
  }
  return json({ expected: text, methods: out });
}

/** The digest of the bytes `read` gives, or the error it failed with. */
function settledDigest(
  read: Promise<ArrayBuffer | Uint8Array>,
): Promise<string | { error: { name: string; message: string } }> {
  return read.then((bytes) => digest(new Uint8Array(bytes)), (e: unknown) => ({ error: errorInfo(e) }));
}

/** A pull source of the global class (ours while patched) or `RS` over `chunks`, erroring with `fail` after them. */
function pullSource(chunks: Uint8Array[], fail?: unknown, RS: typeof ReadableStream = globalThis.ReadableStream) {
  return new RS<Uint8Array>({
    pull(c) {
      const next = chunks.shift();
      if (next !== undefined) c.enqueue(next);
      else if (fail !== undefined) c.error(fail);
      else c.close();
    },
  });
}

/**
 * NATIVE-CODEC-THROUGH, patched: native streams and bodies piped through the global (our) codec classes, what
 * comes out, whether the runtime's own pipe was taken (the readable side is a body shell), and the locks.
 */
async function codecThrough(): Promise<Response> {
  const g = globalThis as unknown as Record<string, new (format: string) => TransformStream<Uint8Array, Uint8Array>>;
  const CS = g["CompressionStream"]!;
  const DS = g["DecompressionStream"]!;
  try {
    new CS("gzip");
  } catch (e) {
    return json({ noCodec: errorInfo(e), global: typeof CS });
  }
  const input = new TextEncoder().encode("<p>édge stream ".repeat(5000));
  const out: Record<string, unknown> = { expected: digest(input), ours: CS === (edge.CompressionStream as never) };
  for (const format of ["gzip", "deflate", "deflate-raw"]) {
    const cs = new CS(format);
    const source = new Blob([input]).stream();
    const readable = source.pipeThrough(cs);
    const locks = { same: readable === cs.readable, writable: cs.writable.locked, source: source.locked };
    const zipped = new Uint8Array(await new Response(readable).arrayBuffer());
    await Promise.resolve();
    const back = await settledDigest(bytesOf(new Response(zipped).body!.pipeThrough(new DS(format)) as Stream));
    out[format] = {
      shell: isBodyShell(readable),
      locks,
      after: { writable: cs.writable.locked },
      back,
    };
  }
  // A body: the Response's own stream, read through a reader of ours.
  const zipped = new Uint8Array(
    await new Response(new Blob([input]).stream().pipeThrough(new CS("gzip"))).arrayBuffer(),
  );
  const response = new Response(zipped);
  const body = response.body!;
  const fromBody = body.pipeThrough(new DS("gzip"));
  const bodyLocked = body.locked;
  out["body"] = {
    shell: isBodyShell(fromBody),
    locked: bodyLocked,
    used: response.bodyUsed,
    back: await settledDigest(bytesOf(fromBody as Stream)),
  };
  out["bodyAfter"] = { locked: body.locked };
  // Not taken: a codec whose side was asked for, a pipe with options, a stream of ours.
  const touched = new DS("gzip");
  void touched.readable;
  const viaTouched = new Blob([zipped]).stream().pipeThrough(touched);
  const withOptions = new Blob([zipped]).stream().pipeThrough(new DS("gzip"), { preventClose: false });
  const fromOurs = new (globalThis.ReadableStream as typeof ReadableStream)({
    start(c) {
      c.enqueue(zipped.slice());
      c.close();
    },
  }).pipeThrough(new DS("gzip"));
  // A subclass whose getter a pipe would call.
  let asked = 0;
  class Counted extends DS {
    override get readable() {
      asked++;
      return super.readable;
    }
  }
  const viaSubclass = new Blob([zipped]).stream().pipeThrough(new Counted("gzip"));
  out["subclass"] = {
    shell: isBodyShell(viaSubclass),
    back: await settledDigest(bytesOf(viaSubclass as Stream)),
    asked,
  };
  out["touched"] = { shell: isBodyShell(viaTouched), back: await settledDigest(bytesOf(viaTouched as Stream)) };
  out["options"] = { shell: isBodyShell(withOptions), back: await settledDigest(bytesOf(withOptions as Stream)) };
  out["fromOurs"] = { shell: isBodyShell(fromOurs), back: await settledDigest(bytesOf(fromOurs as Stream)) };
  // Corrupt and truncated input: the runtime's own error, the writable side errored after.
  const bad = zipped.slice();
  bad[bad.length - 5]! ^= 0x5a;
  for (const [what, bytes] of [["corrupt", bad], ["truncated", zipped.slice(0, zipped.length >> 1)]] as const) {
    const ds = new DS("gzip");
    const readable = new Blob([bytes]).stream().pipeThrough(ds);
    const result = await settledDigest(bytesOf(readable as Stream));
    await new Promise((r) => setTimeout(r, 0));
    const writerError = await ds.writable.getWriter().closed.then(() => "closed", (e) => errorInfo(e).name);
    out[what] = { shell: isBodyShell(readable), result, writable: writerError };
  }
  // Cancel mid-stream: the native source is cancelled as the runtime's own classes cancel it.
  const cancelWith = async (Codec: new (format: string) => TransformStream<Uint8Array, Uint8Array>) => {
    let cancelled: unknown = "not cancelled";
    let sent = 0;
    const endless = new Native.ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(input.subarray(0, 4096));
        sent++;
      },
      cancel(reason) {
        cancelled = String(reason);
      },
    });
    const cancelling = endless.pipeThrough(new Codec("gzip"));
    const reader = cancelling.getReader();
    await reader.read();
    await reader.cancel("enough");
    for (let i = 0; i < 20 && cancelled === "not cancelled"; i++) await new Promise((r) => setTimeout(r, 1));
    return { shell: isBodyShell(cancelling), cancelled, pulled: sent > 0 };
  };
  out["cancel"] = await cancelWith(CS);
  out["cancelNative"] = await cancelWith(Native.CompressionStream as never);
  return json(out);
}

/**
 * NATIVE-CODEC-HANDBACK, patched: whether `new Response(ds.readable)` got workerd's own stream (no bridge of ours:
 * `claimBatchedBody` finds none), and what reading it gives, for streams of ours through the global codec classes.
 */
async function codecHandback(): Promise<Response> {
  type Codec = new (format: string) => TransformStream<Uint8Array, Uint8Array>;
  const g = globalThis as unknown as Record<string, Codec>;
  const CS = g["CompressionStream"]!;
  const DS = g["DecompressionStream"]!;
  try {
    new DS("gzip");
  } catch (e) {
    return json({ noCodec: errorInfo(e) });
  }
  const input = new TextEncoder().encode("<li>édge handback</li>\n".repeat(4000));
  const gz = new Uint8Array(await new Response(new Blob([input]).stream().pipeThrough(new CS("gzip"))).arrayBuffer());
  const pieces = (bytes: Uint8Array) => cut(bytes, [1000]);
  const ours = (chunks: Uint8Array[], fail?: unknown) => pullSource(chunks, fail);
  const handedBack = (readable: unknown) =>
    claimBatchedBody(bodyMadeFor(new Response(readable as Stream))) === undefined;
  const outcome = settledDigest;
  const out: Record<string, unknown> = { expected: digest(input) };
  {
    const readable = ours(pieces(gz)).pipeThrough(new DS("gzip"));
    const probe = ours(pieces(gz)).pipeThrough(new DS("gzip"));
    out["fresh"] = { handedBack: handedBack(probe), bytes: await outcome(new Response(readable).arrayBuffer()) };
    out["freshLocked"] = readable.locked;
  }
  // Compression is not handed back.
  out["compress"] = { handedBack: handedBack(ours(pieces(input)).pipeThrough(new CS("gzip"))) };
  // Corrupt input and a source that fails: as with the runtime's own classes.
  const bad = gz.slice();
  bad[bad.length - 5]! ^= 0x5a;
  const nativeOf = (chunks: Uint8Array[], fail?: unknown) =>
    pullSource(chunks, fail, Native.ReadableStream as typeof ReadableStream);
  const NativeDS = Native.DecompressionStream as unknown as Codec;
  out["corrupt"] = {
    ours: await outcome(new Response(ours(pieces(bad)).pipeThrough(new DS("gzip"))).arrayBuffer()),
    native: await outcome(new Native.Response(nativeOf(pieces(bad)).pipeThrough(new NativeDS("gzip"))).arrayBuffer()),
  };
  const half = pieces(gz).slice(0, 3);
  out["failing"] = {
    ours: await outcome(
      new Response(ours(half.slice(), new TypeError("source failed")).pipeThrough(new DS("gzip"))).arrayBuffer(),
    ),
    native: await outcome(
      new Native.Response(nativeOf(half.slice(), new TypeError("source failed")).pipeThrough(new NativeDS("gzip")))
        .arrayBuffer(),
    ),
  };
  return json(out);
}

const HANG = Symbol("hang");

/** What happens to a locked or disturbed stream handed to the runtime: thrown at once, or when read. */
async function badState(url: URL): Promise<Response> {
  const which = url.searchParams.get("state") ?? "locked";
  const target = url.searchParams.get("target") ?? "response";
  const echo = url.searchParams.get("echo");
  const make = async (RS: typeof Native.ReadableStream): Promise<Stream> => {
    const s = new RS<Bytes>({
      start(c) {
        c.enqueue(new Uint8Array([1, 2, 3]));
        c.enqueue(new Uint8Array([4, 5, 6]));
      },
    });
    const reader = s.getReader();
    if (which === "disturbed") {
      await reader.read();
      reader.releaseLock();
    }
    return s;
  };
  const outcome = async (s: Stream) => {
    let phase = "construct";
    try {
      let done: Promise<unknown>;
      if (target === "response") {
        const r = new Response(s);
        phase = "read";
        done = r.text();
      } else if (target === "request") {
        const r = new Request("http://example.invalid/", { method: "POST", body: s, duplex: "half" } as RequestInit);
        phase = "read";
        done = r.text();
      } else {
        phase = "fetch";
        done = fetch(echo!, { method: "POST", body: s, duplex: "half" } as RequestInit).then((r) => r.text());
      }
      const hang = sleep(2000).then(() => HANG);
      const value = await Promise.race([done, hang]);
      return value === HANG ? { phase: "hangs" } : { phase: "none", value: String(value) };
    } catch (e) {
      return { phase, ...errorInfo(e) };
    }
  };
  return json({
    ours: await outcome(await make(edge.ReadableStream as unknown as typeof Native.ReadableStream)),
    native: await outcome(await make(Native.ReadableStream)),
  });
}

async function instanceOf(request: Request): Promise<Response> {
  const G = globalThis as unknown as Record<string, new (...a: never[]) => unknown>;
  const both = (name: "ReadableStream" | "WritableStream" | "TransformStream") => ({
    nativeIsGlobal: new (Native[name] as unknown as new () => object)() instanceof G[name]!,
    oursIsGlobal: new (edge[name] as unknown as new () => object)() instanceof G[name]!,
    oursIsNative: new (edge[name] as unknown as new () => object)() instanceof
      (Native[name] as unknown as new () => object),
    globalIsOurs: G[name] === (edge[name] as unknown),
  });
  const bytes = new TextEncoder().encode("hello, edge");
  const nativeSource = () =>
    new Native.ReadableStream<Bytes>({
      start(c) {
        c.enqueue(bytes as Bytes);
        c.close();
      },
    });
  const identity = () => new edge.TransformStream<Bytes, Bytes>();
  const nativeThroughOurs = await bytesOf(
    (nativeSource() as unknown as edge.ReadableStream<Bytes>).pipeThrough(identity()) as never,
  )
    .then((b) => digest(b), (e) => errorInfo(e));
  const blobThroughOurs = await bytesOf(
    (new Blob([bytes]).stream() as unknown as edge.ReadableStream<Bytes>).pipeThrough(identity()) as never,
  )
    .then((b) => digest(b), (e) => errorInfo(e));
  const collected: Uint8Array[] = [];
  const nativeToOurs = await (nativeSource() as unknown as edge.ReadableStream<Bytes>)
    .pipeTo(
      new edge.WritableStream<Bytes>({
        write(c) {
          collected.push(c);
        },
      }),
    )
    .then(() => digest(collected[0] ?? new Uint8Array(0)), (e) => errorInfo(e));
  // CompressionStream where the runtime has it (edge-runtime does not): a native pair either way.
  const hasGzip = typeof CompressionStream === "function";
  const native1 = hasGzip ? new CompressionStream("gzip") : new Native.TransformStream();
  const native2 = hasGzip ? new DecompressionStream("gzip") : new Native.TransformStream();
  const throughNative = (edge.ReadableStream.from([bytes]) as edge.ReadableStream<Bytes>)
    .pipeThrough(native1 as never)
    .pipeThrough(native2 as never);
  const oursThroughNative = await bytesOf(throughNative as never).then((b) => digest(b), (e) => errorInfo(e));
  // Native streams the runtime makes, piped into ours (issue 27, case 11): a Response body, the request body,
  // and a TextDecoderStream's readable side.
  const responseThroughOurs = await bytesOf(new Response(bytes).body!.pipeThrough(identity() as never) as never)
    .then((b) => digest(b), (e) => errorInfo(e));
  const requestThroughOurs = await bytesOf(request.body!.pipeThrough(identity() as never) as never)
    .then((b) => digest(b), (e) => errorInfo(e));
  const decoded: string[] = [];
  const decoder = new TextDecoderStream();
  const writer = decoder.writable.getWriter();
  void writer.write(bytes).then(() => writer.close());
  const decoderToOurs = await (decoder.readable as unknown as edge.ReadableStream<string>)
    .pipeTo(
      new edge.WritableStream<string>({
        write(c) {
          decoded.push(c);
        },
      }),
    )
    .then(() => decoded.join(""), (e) => errorInfo(e));
  const responseBody = new Response("abc").body;
  return json({
    responseThroughOurs,
    requestThroughOurs,
    requestExpected: digest(new Uint8Array([1, 2, 3])),
    decoderToOurs,
    decoderExpected: "hello, edge",
    ReadableStream: both("ReadableStream"),
    WritableStream: both("WritableStream"),
    TransformStream: both("TransformStream"),
    responseBodyIsOurs: isOurs(responseBody),
    responseBodyIsGlobal: responseBody instanceof G["ReadableStream"]!,
    requestBodyIsOurs: isOurs(request.body),
    readerIsGlobal: new Response("abc").body!.getReader() instanceof G["ReadableStreamDefaultReader"]!,
    expected: digest(bytes),
    nativeThroughOurs,
    blobThroughOurs,
    nativeToOurs,
    oursThroughNative,
    nativePair: hasGzip ? "CompressionStream + DecompressionStream" : "TransformStream",
  });
}

async function toNative(url: URL): Promise<Response> {
  const which = url.searchParams.get("case") ?? "backpressure";
  if (which === "backpressure") {
    let pulls = 0;
    const ours = new edge.ReadableStream<Bytes>({
      pull(c) {
        pulls++;
        if (pulls > 10_000) c.close();
        else c.enqueue(chunkAt(pulls, 1024) as Bytes);
      },
    });
    const native = edge.toNativeReadableStream(ours) as Stream;
    const reader = native.getReader();
    await reader.read();
    await sleep(30);
    const afterOne = pulls;
    await reader.read();
    await reader.read();
    await sleep(30);
    const afterThree = pulls;
    await reader.cancel();
    return json({
      isNative: native instanceof Native.ReadableStream && !isOurs(native),
      afterOne,
      afterThree,
    });
  }
  if (which === "cancel") {
    let reason: unknown;
    let cancels = 0;
    const ours = new edge.ReadableStream<Bytes>({
      pull(c) {
        c.enqueue(new Uint8Array(8) as Bytes);
      },
      cancel(r) {
        cancels++;
        reason = r;
      },
    });
    const native = edge.toNativeReadableStream(ours) as Stream;
    const reader = native.getReader();
    await reader.read();
    const sent = new Error("stop here");
    await reader.cancel(sent);
    await sleep(10);
    return json({
      cancels,
      sameReason: reason === sent,
      reason: errorInfo(reason),
      oursState: edge.readableStreamState(ours)?.state,
    });
  }
  if (which === "error") {
    const sent = new RangeError("source failed");
    let pulls = 0;
    const ours = new edge.ReadableStream<Bytes>({
      pull(c) {
        if (++pulls === 1) c.enqueue(new Uint8Array([7]) as Bytes);
        else c.error(sent);
      },
    });
    const reader = (edge.toNativeReadableStream(ours) as Stream).getReader();
    const first = await reader.read();
    let caught: unknown;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch (e) {
      caught = e;
    }
    return json({ first: Array.from(first.value ?? []), same: caught === sent, error: errorInfo(caught) });
  }
  if (which === "passthrough") {
    const native = new Native.ReadableStream();
    return json({ same: (edge.toNativeReadableStream(native as never) as unknown) === native });
  }
  if (which === "locked") {
    const ours = new edge.ReadableStream<Bytes>();
    ours.getReader();
    try {
      edge.toNativeReadableStream(ours);
      return json({ threw: false });
    } catch (e) {
      return json({ threw: true, ...errorInfo(e) });
    }
  }
  return json({ error: `unknown case ${which}` }, 400);
}

/**
 * A body of the global ReadableStream class (ours while patched) read once, then cancelled with no reason,
 * with a reason, and with a source whose cancel fails: what the source saw and what `cancel()` gave. The
 * test compares the answer while patched with the answer before the patch (native streams).
 */
async function bodyCancel(): Promise<Response> {
  const failure = new Error("our cancel failed");
  const observe = async (reason: unknown, fails: boolean) => {
    const seen: unknown[] = [];
    const source = new globalThis.ReadableStream<Bytes>(
      {
        pull(c) {
          c.enqueue(new Uint8Array([1, 2, 3]) as Bytes);
        },
        cancel(r) {
          seen.push(r);
          if (fails) throw failure;
        },
      },
      { highWaterMark: 0 },
    );
    const reader = new Response(source).body!.getReader();
    await reader.read();
    const result = await reader.cancel(reason).then(
      () => "fulfilled",
      (e: unknown) => (e === failure ? "our failure" : errorInfo(e)),
    );
    return { cancels: seen.length, sawUndefined: seen[0] === undefined, sawReason: seen[0] === reason, result };
  };
  return json({
    none: await observe(undefined, false),
    reason: await observe({ why: "stop" }, false),
    failing: await observe("r", true),
  });
}

/** A stream of the class `RS` with the UTF-8 bytes of `text` as one chunk. */
function textStream(RS: typeof Native.ReadableStream, text: string): Stream {
  return new RS<Bytes>({
    start(c) {
      c.enqueue(new TextEncoder().encode(text) as Bytes);
      c.close();
    },
  });
}

/**
 * What `text()`, `arrayBuffer()`, `blob()`, `clone()` and a pipe do with a body locked by a reader of
 * `response.body`, for a string body, a native stream and a stream of the global class (ours while
 * patched). The test compares the answer while patched with the answer before the patch.
 */
async function bodyLock(): Promise<Response> {
  return json({
    string: await lockedBodyOutcomes(Response, () => "some body"),
    native: await lockedBodyOutcomes(Response, () => textStream(Native.ReadableStream, "some body")),
    global: await lockedBodyOutcomes(Response, () => textStream(globalThis.ReadableStream, "some body")),
    request: await lockedRequestOutcomes(Request),
  });
}

/**
 * `new Request(url, init)` whose `init` has its other members inherited, non-enumerable or behind a getter
 * that needs `init` itself: method, a header and the body text, for a native body (the global `Request`
 * as it was before any patch) and for a body of the global ReadableStream class (ours while patched).
 */
async function initMembers(): Promise<Response> {
  const out: Record<string, { native: string; global: string }> = {};
  for (const [what, { make: init }] of Object.entries(INIT_CASES)) {
    const describe = async (R: typeof Request, RS: typeof Native.ReadableStream) => {
      try {
        return await describeRequest(new R("http://example.invalid/", init(textStream(RS, "body")) as RequestInit));
      } catch (e) {
        return `${errorInfo(e).name}: ${errorInfo(e).message}`;
      }
    };
    out[what] = {
      native: await describe(Native.Request, Native.ReadableStream),
      global: await describe(Request, globalThis.ReadableStream),
    };
  }
  return json(out);
}

/** An async-iterable (generator) body given to the global Response and Request: what `text()` gives. */
async function iterableBody(): Promise<Response> {
  const gen = () => ({
    async *[Symbol.asyncIterator]() {
      yield new TextEncoder().encode("from ");
      yield new TextEncoder().encode("a generator");
    },
  });
  const outcome = async (fn: () => Promise<string>) => {
    try {
      return await fn();
    } catch (e) {
      return `${errorInfo(e).name}: ${errorInfo(e).message}`;
    }
  };
  return json({
    response: await outcome(() => new Response(gen() as unknown as BodyInit).text()),
    request: await outcome(() =>
      new Request("http://example.invalid/", { method: "POST", body: gen(), duplex: "half" } as unknown as RequestInit)
        .text()
    ),
  });
}

/** One case of the contract suite as run here. */
interface ContractResult {
  name: string;
  status: "passed" | "failed" | "skipped";
  detail?: string;
}

/** Runs the adapter contract suite with the edge adapter, one case after the other. */
function contract(): Promise<Response> {
  return runCases((register) =>
    runtimeAdapterSuite({ runtime: "edge", adapter: edge.adapter, here: true, serve: undefined, register })
  );
}

/** Runs the compression suite (tests/shared/compression-suite.ts), one case after the other. */
function compression(): Promise<Response> {
  const runtime = typeof (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime === "string"
    ? "edge-runtime"
    : "workerd";
  return runCases((register) => compressionSuite(register, runtime));
}

/** Registers a suite's cases, runs them one after the other and answers with their results. */
async function runCases(suite: (register: Registrar) => void): Promise<Response> {
  const cases: { name: string; fn?: () => void | Promise<void>; why?: string }[] = [];
  suite({
    test: (name, fn) => void cases.push({ name, fn }),
    skip: (name, why) => void cases.push({ name, why }),
  });
  const results: ContractResult[] = [];
  for (const c of cases) {
    if (c.fn === undefined) {
      results.push({ name: c.name, status: "skipped", detail: c.why });
      continue;
    }
    try {
      await c.fn();
      results.push({ name: c.name, status: "passed" });
    } catch (e) {
      results.push({
        name: c.name,
        status: "failed",
        detail: e instanceof Error ? `${e.message}\n${e.stack}` : String(e),
      });
    }
  }
  return json(results);
}

/** The worker's request handler. */
export async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  try {
    switch (url.pathname) {
      case "/state":
        return state();
      case "/patch":
        return patch();
      case "/unpatch":
        return unpatch();
      case "/patch-fail":
        return patchFail();
      case "/out":
        return out(url);
      case "/in":
        return inRoute(request, url);
      case "/fetch":
        return await fetchRoute(url);
      case "/clone-response":
        return await cloneResponse(url);
      case "/clone-request":
        return await cloneRequest(request, url);
      case "/bad-chunk":
        return await badChunk(url);
      case "/bad-state":
        return await badState(url);
      case "/consume":
        return await consume();
      case "/instanceof":
        return await instanceOf(request);
      case "/to-native":
        return await toNative(url);
      case "/body-cancel":
        return await bodyCancel();
      case "/init-members":
        return await initMembers();
      case "/iterable-body":
        return await iterableBody();
      case "/body-lock":
        return await bodyLock();
      case "/codec-through":
        return await codecThrough();
      case "/codec-handback":
        return await codecHandback();
      case "/contract":
        return await contract();
      case "/compression":
        return await compression();
      default:
        return json({ error: `no route ${url.pathname}` }, 404);
    }
  } catch (e) {
    return json({ thrown: errorInfo(e), stack: e instanceof Error ? e.stack : undefined }, 500);
  }
}
