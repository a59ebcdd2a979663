/**
 * The adapter contract suite: the cases every runtime adapter (`RuntimeAdapter`, adapters/kit/contract.ts)
 * must pass on its own runtime, written once and run on all seven: Node.js 20 (dist), 22 and 26
 * (tests/unit/node-contract.test.ts, a node:http server), Deno and Bun (tests/unit/deno-adapter.test.ts,
 * bun-adapter.test.ts, with `Deno.serve` / `Bun.serve`), and workerd and edge-runtime (tests/edge/worker.ts's
 * `/contract` route, reported case by case by tests/edge/edge.test.ts; there the worker is itself the
 * server, so the cases that start one are skipped with that reason):
 *
 * - the patch: globals, `instanceof` both ways, exact restore, calling it on another runtime;
 * - a server on 127.0.0.1 (the runtime's own) streaming a render through 3 fusestreams
 *   transforms; the runtime's `fetch` pipes the body through ours again and clones it; request bodies
 *   from fusestreams streams (`fetch`, `new Request`);
 * - the runtime's own streams (`Blob.stream()`, `CompressionStream`, `TextDecoderStream`) piped into ours;
 * - `toNativeReadableStream()` without the patch: bytes, backpressure, cancel and errors both ways;
 * - bad input: a chunk that is not a BufferSource, a locked or disturbed stream.
 *
 * Not a test file itself: it registers its cases through the {@link Registrar} it is given (uvu's `test`
 * in the unit runs, a collector in the edge worker), and asserts with uvu/assert, which runs everywhere.
 * @module
 */
import * as assert from "uvu/assert";
import type { RuntimeAdapter } from "../../adapters/kit/contract.ts";
import { CLASS_NAMES } from "../../adapters/kit/global-patch.ts";
import * as fuse from "../../mod.ts";
import { lockedBodyOutcomes } from "./body-lock.ts";
import { describeRequest, INIT_CASES } from "./request-inits.ts";
import { diffSnapshot, type Snapshot, takeSnapshot } from "./snapshot.ts";

/** Where the suite registers its cases: uvu's `test` in the unit runs, a collector in the edge worker. */
export interface Registrar {
  /** Registers a case. */
  test(name: string, fn: () => void | Promise<void>): void;
  /** Registers a case that does not run here, printing `why` once per reason. */
  skip(name: string, why: string): void;
}

/** A server started by a test; `stop()` closes it and its connections. */
export interface LoopbackServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts the runtime's own HTTP server on 127.0.0.1, port 0, with `handler`. */
export type Serve = (handler: (request: Request) => Response | Promise<Response>) => Promise<LoopbackServer>;

/** What a runtime's test file passes to {@link runtimeAdapterSuite}. */
export interface SuiteOptions {
  /** The runtime the adapter is for, as its patch's error names it ("Node.js", "Deno", "Bun", "workerd"...). */
  runtime: string;
  /** The adapter under test (fusestreams/node, /deno, /bun, /edge). */
  adapter: RuntimeAdapter;
  /** Whether this process runs on the adapter's runtime (elsewhere only the "another runtime" cases run). */
  here: boolean;
  /** The runtime's own server on 127.0.0.1; undefined where there is none (the server cases are skipped). */
  serve: Serve | undefined;
  /** Where the cases are registered. */
  register: Registrar;
  /**
   * How the runtime takes a stream of ours as a body: `"any BufferSource"` (the kit's body bridge: every
   * BufferSource chunk is taken, anything else is a TypeError naming it) or `"as native"` (the runtime reads
   * our stream itself, as Node.js's undici does: a body of ours must end exactly as a native stream of the
   * same chunks does, bytes or error).
   */
  bodyChunks?: "any BufferSource" | "as native";
}

const g = globalThis as unknown as Record<PropertyKey, unknown>;

/** The runtime this process runs on. */
export const currentRuntime: string = "Deno" in g
  ? "Deno"
  : "Bun" in g
  ? "Bun"
  : typeof g["EdgeRuntime"] === "string"
  ? "edge-light"
  : (g["navigator"] as { userAgent?: string } | undefined)?.userAgent === "Cloudflare-Workers"
  ? "workerd"
  : "Node.js";

// Captured when the module loads, before any test patches the globals.
const Native = {
  ReadableStream: globalThis.ReadableStream,
  WritableStream: globalThis.WritableStream,
  TransformStream: globalThis.TransformStream,
  Response: globalThis.Response,
  Request: globalThis.Request,
  fetch: globalThis.fetch,
  CompressionStream: globalThis.CompressionStream as typeof CompressionStream | undefined,
  DecompressionStream: globalThis.DecompressionStream as typeof DecompressionStream | undefined,
};

/**
 * Every global name a patch replaces with a fusestreams class here (CompressionStream and DecompressionStream
 * only where the runtime has its own: not in edge-runtime).
 */
export const STREAM_CLASS_NAMES: readonly string[] = CLASS_NAMES.filter((name) =>
  (name !== "CompressionStream" && name !== "DecompressionStream") || typeof g[name] === "function"
);

const TIMEOUT_MS = 10_000;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Rejects after `ms` so that a stuck stream fails its test instead of hanging the run. */
export function bounded<T>(promise: Promise<T>, what: string, ms: number = TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What a promise settled with: `{ ok: true, value }` or `{ ok: false, error }`. */
export async function settle<T>(
  p: Promise<T> | (() => Promise<T> | T),
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await (typeof p === "function" ? p() : p) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** How `fn` ends, as text: `value: <JSON>` or `<error class>: <message>` (to compare two ways of doing a thing). */
export async function outcomeOf(fn: () => unknown): Promise<string> {
  const r = await settle(async () => await fn());
  if (r.ok) return `value: ${JSON.stringify(r.value)}`;
  const e = (r as { error: unknown }).error;
  return e instanceof Error ? `${e.name}: ${e.message}` : `thrown: ${String(e)}`;
}

/** The error `fn` throws (synchronously or by rejecting); fails when it does not. */
export async function errorOf(fn: () => unknown, what: string): Promise<Error> {
  const r = await settle(async () => await fn());
  if (r.ok) assert.unreachable(`${what}: expected an error, got ${String(r.value)}`);
  const error = (r as { error: unknown }).error;
  assert.instance(error, Error, `${what}: an Error`);
  return error as Error;
}

// ---- a render and 3 transforms -----------------------------------------------------------------

/** The HTML rows of a render, in order (what the client must receive, before the transforms). */
export function renderRows(rows: number): string[] {
  const out = ["<!doctype html><table>\n"];
  for (let i = 0; i < rows; i++) {
    out.push(`<tr class="${i % 2 ? "odd" : "even"}"><td>${i}</td><td>row ${i} &amp; ümlaut €</td></tr>\n`);
  }
  out.push("</table>\n");
  return out;
}

/**
 * The helpers below make fusestreams streams but type them as the global (DOM) classes, so that they
 * mix with the runtime's own streams, `Response` and `fetch` in these tests as they do at run time.
 */
function typedAsGlobal<T>(stream: unknown): T {
  return stream as T;
}

/** Any stream as a `BodyInit` (the DOM types want `Uint8Array<ArrayBuffer>` chunks). */
export function asBody(stream: unknown): BodyInit {
  return stream as BodyInit;
}

/** A request init with a streamed body (`duplex: "half"` is not in the DOM types). */
export function streamInit(method: string, body: unknown): RequestInit {
  return { method, body, duplex: "half" } as unknown as RequestInit;
}

/** A fusestreams byte stream rendering `rows`: one encoded row per pull, an await every 25 rows. */
export function render(rows: string[]): ReadableStream<Uint8Array> {
  let i = 0;
  return typedAsGlobal(
    new fuse.ReadableStream<Uint8Array>({
      async pull(c) {
        if (i % 25 === 24) await new Promise((r) => setTimeout(r, 0));
        c.enqueue(enc.encode(rows[i++]!));
        if (i === rows.length) c.close();
      },
    }),
  );
}

/** Bytes → text (UTF-8, split characters kept whole across chunks). */
export function decodeText(): TransformStream<Uint8Array, string> {
  const d = new TextDecoder();
  return typedAsGlobal(
    new fuse.TransformStream<Uint8Array, string>({
      transform(chunk, c) {
        const s = d.decode(chunk, { stream: true });
        if (s) c.enqueue(s);
      },
      flush(c) {
        const s = d.decode();
        if (s) c.enqueue(s);
      },
    }),
  );
}

/** Text → text: "row" becomes "ROW". */
export function upperRow(): TransformStream<string, string> {
  return typedAsGlobal(
    new fuse.TransformStream<string, string>({
      transform(chunk, c) {
        c.enqueue(chunk.replaceAll("row", "ROW"));
      },
    }),
  );
}

/** Text → UTF-8 bytes. */
export function encodeText(): TransformStream<string, Uint8Array> {
  return typedAsGlobal(
    new fuse.TransformStream<string, Uint8Array>({
      transform(chunk, c) {
        c.enqueue(enc.encode(chunk));
      },
    }),
  );
}

/** What the client must see after the 3 transforms. */
export function expectedRender(rows: string[]): string {
  return rows.join("").replaceAll("row", "ROW");
}

/** A pass-through byte transform of ours that counts chunks and bytes. */
export function counter(): { stream: TransformStream<Uint8Array, Uint8Array>; chunks: number; bytes: number } {
  const state = {
    chunks: 0,
    bytes: 0,
    stream: undefined as unknown as TransformStream<Uint8Array, Uint8Array>,
  };
  state.stream = typedAsGlobal(
    new fuse.TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        state.chunks++;
        state.bytes += chunk.byteLength;
        c.enqueue(chunk);
      },
    }),
  );
  return state;
}

/** Concatenates everything a stream yields (bytes) into one string. */
export async function collectText(
  stream: { getReader(): { read(): Promise<{ done: boolean; value?: unknown }> } },
): Promise<string> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    assert.instance(value, Uint8Array, "a byte chunk");
    parts.push(value as Uint8Array);
  }
  return dec.decode(await new Blob(parts as BlobPart[]).arrayBuffer());
}

/** A fusestreams stream of the given chunks (whatever they are), then closed. */
export function oursOf<T>(...chunks: T[]): ReadableStream<T> {
  return typedAsGlobal(
    new fuse.ReadableStream<T>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    }),
  );
}

/** The chunks, named for a test message. */
function describeChunks(chunks: unknown[]): string {
  return `[${
    chunks.map((c) =>
      c instanceof Uint8Array
        ? `bytes(${c.byteLength})`
        : typeof c === "object" && c !== null
        ? Object.prototype.toString.call(c)
        : JSON.stringify(c) ?? String(c)
    ).join(", ")
  }]`;
}

/** `Body.bytes()`, not yet in every DOM lib. */
interface Body2 {
  bytes(): Promise<Uint8Array>;
}

/** A native stream of the given chunks, then closed. */
function nativeOf<T>(...chunks: T[]): globalThis.ReadableStream<T> {
  return new Native.ReadableStream<T>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
}

// ---- snapshot of what a patch may change -------------------------------------------------------

/**
 * Every global, the functions it holds and their prototypes (native and ours), and the runtime's
 * namespace (`Deno`, `Bun`), whose members a patch may replace (see tests/shared/snapshot.ts).
 */
function snapshotGlobals(): Snapshot {
  return takeSnapshot({ ours: fuse }, { runtime: (g["Deno"] ?? g["Bun"]) as object | undefined });
}

// ---- the suite ---------------------------------------------------------------------------------

/** Registers the shared cases (uvu `test`) for one runtime adapter. */
export function runtimeAdapterSuite(options: SuiteOptions): void {
  const { runtime, adapter, serve, here, register, bodyChunks = "any BufferSource" } = options;
  const test = register.test;
  const label = runtime.toLowerCase();
  const notHere = `the ${runtime} cases are skipped on ${currentRuntime} (they need ${runtime}'s own globals)`;
  const noServer = `the cases that start a server are skipped on ${currentRuntime}: it has no server API ` +
    `(the worker is the server: tests/edge/edge.test.ts)`;

  /** A test that runs only on the adapter's runtime, bounded in time, the patch always taken off after it. */
  const onRuntime = (name: string, fn: () => Promise<void>): void => {
    const full = `${label}: ${name}`;
    if (!here) {
      register.skip(full, notHere);
      return;
    }
    test(full, async () => {
      try {
        await bounded(fn(), full, TIMEOUT_MS + 5_000);
      } finally {
        adapter.unpatchGlobalWebStreams();
      }
    });
  };

  /** {@link onRuntime} for a case that starts the runtime's own server. */
  const onServer = (name: string, fn: () => Promise<void>): void => {
    if (here && serve === undefined) register.skip(`${label}: ${name}`, noServer);
    else onRuntime(name, fn);
  };

  /** Runs `fn` with the patch on, taking it off afterwards. */
  const patched = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    adapter.patchGlobalWebStreams();
    try {
      return await fn();
    } finally {
      adapter.unpatchGlobalWebStreams();
    }
  };

  /** Starts a server, runs `fn` with its URL, always stops it. */
  const withServer = async (
    handler: (request: Request) => Response | Promise<Response>,
    fn: (url: string) => Promise<void>,
  ): Promise<void> => {
    const server = await serve!(handler);
    try {
      await fn(server.url);
    } finally {
      await bounded(server.stop(), "server stop", 5_000);
    }
  };

  // ---- another runtime: fails at once and changes nothing (runs everywhere but on the adapter's runtime)

  if (!here) {
    test(`${label}: patchGlobalWebStreams() on ${currentRuntime} throws a clear error and changes nothing`, () => {
      const before = snapshotGlobals();
      let error: unknown;
      try {
        adapter.patchGlobalWebStreams();
      } catch (err) {
        error = err;
      }
      assert.instance(error, Error, "it throws");
      const message = (error as Error).message;
      assert.ok(message.includes(runtime), `the message names the adapter's runtime: ${message}`);
      assert.ok(
        message.includes(currentRuntime) || message.includes("not"),
        `the message says where it runs: ${message}`,
      );
      assert.not.ok(adapter.isGlobalWebStreamsPatched());
      assert.equal(diffSnapshot(before, snapshotGlobals()), [], "nothing changed");
      assert.is(globalThis.ReadableStream, Native.ReadableStream);
      adapter.unpatchGlobalWebStreams(); // a no-op
      assert.equal(diffSnapshot(before, snapshotGlobals()), []);
    });
  }

  if (!here) {
    test(`${label}: a ${runtime} namespace put on ${currentRuntime}'s global by a shim does not make the adapter patch`, () => {
      const had = Object.getOwnPropertyDescriptor(globalThis, runtime);
      const fake = runtime === "Deno" ? { version: { deno: "9.9.9", v8: "0", typescript: "0" } } : { version: "9.9.9" };
      if (had === undefined) {
        Object.defineProperty(globalThis, runtime, { value: fake, configurable: true, writable: true });
      }
      try {
        const before = snapshotGlobals();
        assert.throws(
          () => adapter.patchGlobalWebStreams(),
          (e: unknown) => e instanceof TypeError && (e as Error).message.includes(runtime),
        );
        assert.not.ok(adapter.isGlobalWebStreamsPatched());
        assert.equal(diffSnapshot(before, snapshotGlobals()), [], "nothing changed");
      } finally {
        if (had === undefined) delete g[runtime];
      }
    });
  }

  // ---- the patch itself

  onRuntime("the globals become ours, instanceof works both ways, patching twice is a no-op", async () => {
    const nativeRS = new Native.ReadableStream();
    const nativeWS = new Native.WritableStream();
    const nativeTS = new Native.TransformStream();
    assert.not.ok(adapter.isGlobalWebStreamsPatched());
    await patched(() => {
      assert.ok(adapter.isGlobalWebStreamsPatched());
      const ours = fuse as unknown as Record<string, unknown>;
      for (const name of STREAM_CLASS_NAMES) assert.is(g[name], ours[name], name);
      adapter.patchGlobalWebStreams();
      assert.ok(adapter.isGlobalWebStreamsPatched());
      assert.ok(nativeRS instanceof globalThis.ReadableStream, "native instanceof the patched global");
      assert.ok(nativeWS instanceof globalThis.WritableStream);
      assert.ok(nativeTS instanceof globalThis.TransformStream);
      assert.ok(new fuse.ReadableStream() instanceof Native.ReadableStream, "ours instanceof the native class");
      assert.ok(new fuse.WritableStream() instanceof Native.WritableStream);
      assert.ok(new fuse.TransformStream() instanceof Native.TransformStream);
      assert.not.ok({} instanceof globalThis.ReadableStream);
      assert.is(Object.prototype.toString.call(new globalThis.ReadableStream()), "[object ReadableStream]");
      assert.instance(new Response("abc").body, globalThis.ReadableStream, "a body is instanceof the global");
    });
    assert.not.ok(adapter.isGlobalWebStreamsPatched());
    assert.is(globalThis.ReadableStream, Native.ReadableStream);
    assert.not.ok(new fuse.ReadableStream() instanceof Native.ReadableStream, "not after unpatch");
  });

  onRuntime(
    "ReadableStream.from() of a string: as the runtime's own while patched, the standard's otherwise",
    async () => {
      /** What from(text) gives: its chunks, or the error's name. */
      const fromString = async (RS: { from?: (x: unknown) => AsyncIterable<unknown> }): Promise<string> => {
        if (typeof RS.from !== "function") return "no from()";
        try {
          const out: unknown[] = [];
          for await (const chunk of RS.from("a\u{1F600}b")) out.push(chunk);
          return JSON.stringify(out);
        } catch (e) {
          return (e as Error).name;
        }
      };
      const native = await fromString(Native.ReadableStream as never);
      const ours = fuse.ReadableStream as never;
      assert.is(await fromString(ours), "TypeError", "unpatched: the current standard (whatwg/streams#1372)");
      const whilePatched = await patched(() => fromString(ours));
      if (native !== "no from()") assert.is(whilePatched, native, "patched: as the runtime's own");
      if (native !== "TypeError" && native !== "no from()") {
        assert.is(
          whilePatched,
          JSON.stringify(["a", "\u{1F600}", "b"]),
        );
      }
      assert.is(await fromString(ours), "TypeError", "after unpatch");
    },
  );

  onRuntime(
    "patched: pipeThrough() reads the pair's readable and writable once each, readable first, as the standard",
    async () => {
      await patched(async () => {
        const sources = {
          ours: () => new fuse.ReadableStream<string>({ start: (c) => (c.enqueue("x"), c.close()) }),
          native: () => new Native.ReadableStream<string>({ start: (c) => (c.enqueue("x"), c.close()) }),
        };
        const pairs = {
          ours: () => new fuse.TransformStream<string, string>(),
          native: () => new Native.TransformStream(),
        };
        for (const [from, source] of Object.entries(sources)) {
          for (const [kind, make] of Object.entries(pairs)) {
            const reads: string[] = [];
            const inner = make();
            const pair = {
              get readable() {
                reads.push("readable");
                return inner.readable;
              },
              get writable() {
                reads.push("writable");
                return inner.writable;
              },
            };
            const out = (source() as unknown as ReadableStream<string>).pipeThrough(pair as never);
            assert.equal(reads, ["readable", "writable"], `${from} source, ${kind} pair`);
            const got: unknown[] = [];
            for await (const chunk of out as unknown as AsyncIterable<unknown>) got.push(chunk);
            assert.equal(got, ["x"], `${from} source, ${kind} pair: the chunk through`);
          }
        }
      });
    },
  );

  onRuntime("unpatch restores every global, prototype property and prototype link exactly", async () => {
    const before = snapshotGlobals();
    adapter.patchGlobalWebStreams();
    const during = snapshotGlobals();
    adapter.unpatchGlobalWebStreams();
    const after = snapshotGlobals();
    assert.ok(diffSnapshot(before, during).length >= STREAM_CLASS_NAMES.length, "the patch changed things");
    assert.equal(diffSnapshot(before, after), [], "nothing differs after unpatch");
    await patched(() => undefined);
    assert.equal(diffSnapshot(before, snapshotGlobals()), [], "twice over");
  });

  onRuntime(
    'patch options: compression "runtime" (the default) or "batched"; anything else changes nothing',
    async () => {
      const before = snapshotGlobals();
      for (const bad of [1, "batched", { compression: "fast" }, { compression: 1 }, { compression: "Batched" }]) {
        assert.throws(
          () => adapter.patchGlobalWebStreams(bad as never),
          (e: unknown) => e instanceof TypeError && (e as Error).message.includes("options"),
          `patchGlobalWebStreams(${JSON.stringify(bad)})`,
        );
        assert.not.ok(adapter.isGlobalWebStreamsPatched());
        assert.equal(diffSnapshot(before, snapshotGlobals()), [], `nothing changed by ${JSON.stringify(bad)}`);
      }
      adapter.patchGlobalWebStreams({ compression: "batched" });
      try {
        adapter.patchGlobalWebStreams({ compression: "batched" }); // the same options: a no-op
        for (const other of [undefined, { compression: "runtime" as const }]) {
          assert.throws(
            () => adapter.patchGlobalWebStreams(other),
            (e: unknown) => e instanceof TypeError && (e as Error).message.includes("already patched"),
          );
        }
        assert.ok(adapter.isGlobalWebStreamsPatched());
      } finally {
        adapter.unpatchGlobalWebStreams();
      }
      assert.equal(diffSnapshot(before, snapshotGlobals()), [], "nothing differs after unpatch");
      const NativeDS = Native.DecompressionStream;
      if (Native.CompressionStream === undefined || NativeDS === undefined) {
        console.log(`(${currentRuntime} has no CompressionStream: the compression part of this case does not apply)`);
        return;
      }
      const rows = renderRows(400);
      type CS = new (format: "gzip") => TransformStream<Uint8Array, Uint8Array>;
      const gzip = async (C: unknown): Promise<Uint8Array> =>
        new Uint8Array(
          await new Response(oursOf(...rows.map((row) => enc.encode(row))).pipeThrough(new (C as CS)("gzip")))
            .arrayBuffer(),
        );
      const gunzip = (bytes: Uint8Array): Promise<string> =>
        collectText(nativeOf(bytes).pipeThrough(new NativeDS("gzip") as never));
      const native = await gzip(Native.CompressionStream);
      const byDefault = await patched(() => gzip(globalThis.CompressionStream));
      adapter.patchGlobalWebStreams({ compression: "batched" });
      let batched: Uint8Array;
      try {
        batched = await gzip(globalThis.CompressionStream);
        assert.equal(await gzip(fuse.CompressionStream), batched, "the exported class compresses as the global");
      } finally {
        adapter.unpatchGlobalWebStreams();
      }
      // node:zlib run synchronously (Node.js, Deno, Bun) makes the same bytes every time; workerd's own streams, driven
      // in batches (the edge adapter), cut their output where the batches fell.
      const zlibSync = runtime === "Node.js" || runtime === "Deno" || runtime === "Bun";
      if (zlibSync) assert.equal(await gzip(fuse.CompressionStream), byDefault, "after unpatch: as before the patch");
      for (const [what, bytes] of [["native", native], ["runtime", byDefault], ["batched", batched]] as const) {
        assert.is(await gunzip(bytes), rows.join(""), `${what}: decompresses to what was written`);
      }
      if (zlibSync) assert.equal(byDefault, native, '"runtime": the runtime\'s own bytes');
      if (runtime === "Deno") {
        // No flush after each of the 400 chunks (each one at least 5 bytes).
        assert.ok(
          batched.byteLength < native.byteLength,
          `"batched": smaller (${batched.byteLength} < ${native.byteLength})`,
        );
      } else if (runtime === "Bun") {
        // Bun's zlib cuts its output where its input was cut: 16 KiB per call are other bytes.
        assert.not.equal(batched, native, '"batched": other bytes than Bun\'s own');
      } else if (zlibSync) {
        assert.equal(batched, byDefault, '"batched": the same bytes here');
      }
    },
  );

  // ---- a server streaming a render through 3 of our transforms, the runtime's fetch piping and cloning

  onServer(
    "server: render -> 3 transforms -> Response; fetch -> body through ours -> clone (6 requests, 3 at a time)",
    async () => {
      const rows = renderRows(300);
      const expected = expectedRender(rows);
      await patched(() =>
        withServer(
          () =>
            new Response(render(rows).pipeThrough(decodeText()).pipeThrough(upperRow()).pipeThrough(encodeText()), {
              headers: { "content-type": "text/html; charset=utf-8" },
            }),
          async (url) => {
            const one = async (k: number): Promise<void> => {
              const res = await fetch(`${url}/page/${k}`);
              assert.is(res.status, 200);
              assert.instance(res.body, globalThis.ReadableStream, "the fetch body is instanceof the (patched) global");
              if (k % 2 === 0) {
                // pipe through ours, wrap in a new Response, clone that
                const count = counter();
                const piped = new Response(res.body!.pipeThrough(count.stream));
                const copy = piped.clone();
                const [a, b] = await Promise.all([piped.text(), copy.text()]);
                assert.is(a, expected, `request ${k}: the piped body`);
                assert.is(b, expected, `request ${k}: its clone`);
                assert.is(count.bytes, enc.encode(expected).byteLength);
                assert.ok(count.chunks > 0);
              } else {
                // clone the fetch response itself, read one side through ours
                const copy = res.clone();
                const [a, b] = await Promise.all([collectText(res.body!.pipeThrough(counter().stream)), copy.text()]);
                assert.is(a, expected, `request ${k}: the body through ours`);
                assert.is(b, expected, `request ${k}: the clone`);
              }
            };
            for (let wave = 0; wave < 2; wave++) await Promise.all([0, 1, 2].map((i) => one(wave * 3 + i)));
          },
        )
      );
    },
  );

  onServer(
    "request bodies: fetch(url, { body: ours }) and new Request(url, { body: ours }) arrive exactly, server reads them through ours",
    async () => {
      const rows = renderRows(120);
      const expected = rows.join("");
      await patched(() =>
        withServer(
          async (req) => {
            assert.instance(req.body, globalThis.ReadableStream);
            const text = await collectText(req.body!.pipeThrough(decodeText()).pipeThrough(encodeText()));
            return new Response(`${req.method} ${text.length} ${text}`);
          },
          async (url) => {
            const a = await fetch(url, streamInit("POST", render(rows)));
            assert.is(await a.text(), `POST ${expected.length} ${expected}`, "fetch with our stream as body");
            const request = new Request(url, streamInit("PUT", render(rows)));
            const copy = request.clone();
            const b = await fetch(request);
            assert.is(await b.text(), `PUT ${expected.length} ${expected}`, "new Request with our stream as body");
            assert.is(await copy.text(), expected, "the request's clone");
          },
        )
      );
    },
  );

  onRuntime(
    "the runtime's own streams pipe into ours: Blob.stream(), CompressionStream, TextDecoderStream readable sides",
    async () => {
      const rows = renderRows(200);
      const text = rows.join("");
      await patched(async () => {
        const count = counter();
        assert.is(
          await collectText(new Blob([text]).stream().pipeThrough(count.stream)),
          text,
          "Blob.stream() through ours",
        );
        assert.ok(count.chunks > 0);

        if (typeof globalThis.CompressionStream === "function") {
          const gz = render(rows).pipeThrough(
            new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
          ).pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
          assert.is(await collectText(gz.pipeThrough(counter().stream)), text, "ours -> gzip -> gunzip -> ours");
        } else {
          console.log(`(${currentRuntime} has no CompressionStream: the gzip part of this case does not apply)`);
        }

        const strings: string[] = [];
        await render(rows)
          .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
          .pipeThrough(upperRow())
          .pipeTo(
            new globalThis.WritableStream<string>({
              write(s) {
                strings.push(s);
              },
            }),
          );
        assert.is(strings.join(""), expectedRender(rows), "ours -> TextDecoderStream -> ours -> our sink");

        const sink: string[] = [];
        await new Blob([text]).stream().pipeTo(
          new globalThis.WritableStream<Uint8Array>({
            write(chunk) {
              sink.push(dec.decode(chunk, { stream: true }));
            },
          }),
        );
        assert.is(sink.join(""), text, "native pipeTo into our WritableStream");
      });
    },
  );

  onRuntime(
    "patched: CompressionStream and DecompressionStream are ours; a native body through them, to a Response, reads as the runtime's own",
    async () => {
      if (Native.CompressionStream === undefined || Native.DecompressionStream === undefined) {
        console.log(`(${currentRuntime} has no CompressionStream: the patch leaves the name alone)`);
        await patched(() => {
          assert.is(g["CompressionStream"], undefined);
          assert.is(g["DecompressionStream"], undefined);
        });
        return;
      }
      const rows = renderRows(300);
      const text = rows.join("");
      await patched(async () => {
        assert.is(globalThis.CompressionStream as unknown, fuse.CompressionStream);
        assert.is(globalThis.DecompressionStream as unknown, fuse.DecompressionStream);
        const cs = new CompressionStream("gzip");
        assert.ok(cs.readable instanceof fuse.ReadableStream, "its sides are ours");
        assert.ok(cs instanceof Native.CompressionStream!, "ours instanceof the native class while patched");
        // a native stream piped (by the native pipeThrough, through the patch) into ours, handed to Response
        const body = new Blob([text]).stream().pipeThrough(cs as unknown as TransformStream<Uint8Array, Uint8Array>);
        const gz = new Uint8Array(await bounded(new Response(body).arrayBuffer(), "Response of our gzip"));
        // the runtime's own DecompressionStream reads our bytes
        const native = new Blob([gz]).stream().pipeThrough(
          new Native.DecompressionStream!("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
        );
        assert.is(await bounded(new Response(native).text(), "native gunzip"), text, "native gunzip of ours");
        // ours reads it back, and a corrupt copy is a TypeError
        const back = new Blob([gz]).stream().pipeThrough(
          new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
        );
        assert.is(await bounded(new Response(back).text(), "our gunzip"), text, "our gunzip, patched");
        const bad = gz.slice();
        bad[bad.length - 5] ^= 0xff;
        const failing = new Blob([bad]).stream().pipeThrough(
          new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
        );
        let error: unknown;
        await bounded(new Response(failing).text().catch((e: unknown) => void (error = e)), "corrupt gunzip");
        assert.instance(error, TypeError, "a corrupt stream is a TypeError");
      });
      assert.is(globalThis.CompressionStream, Native.CompressionStream, "unpatched: the runtime's own again");
      assert.is(globalThis.DecompressionStream, Native.DecompressionStream);
    },
  );

  // ---- toNativeReadableStream without the patch

  onRuntime(
    "toNativeReadableStream: a native stream of the same chunks (any chunk, by identity); a native Response reads its bytes",
    async () => {
      assert.not.ok(adapter.isGlobalWebStreamsPatched());
      const bytes = enc.encode("0123456789abcdef");
      const views = [bytes.subarray(0, 3), bytes.subarray(3, 9), new Uint8Array(0), bytes.subarray(9)];
      const native = adapter.toNativeReadableStream(oursOf(...views));
      assert.ok(native instanceof Native.ReadableStream, "instanceof the native class");
      assert.not.ok((native as unknown) instanceof fuse.ReadableStream);
      assert.is(await new Response(asBody(native)).text(), "0123456789abcdef");

      const things: unknown[] = ["a string", 42, { an: "object" }, bytes.buffer];
      const reader = adapter.toNativeReadableStream(oursOf(...things)).getReader();
      for (const thing of things) {
        const { done, value } = await reader.read();
        assert.not.ok(done);
        assert.is(value, thing, "the same chunk, not a copy or a conversion");
      }
      assert.ok((await reader.read()).done);
    },
  );

  onRuntime("toNativeReadableStream: backpressure (a slow consumer never makes us buffer the source)", async () => {
    let pulls = 0;
    const source = new fuse.ReadableStream<Uint8Array>({
      pull(c) {
        pulls++;
        c.enqueue(new Uint8Array(1024));
        if (pulls === 10_000) c.close();
      },
    });
    const native = adapter.toNativeReadableStream(source);
    await new Promise((r) => setTimeout(r, 20));
    const idle = pulls;
    assert.ok(idle <= 4, `nothing read yet: ${idle} pulls`);
    const reader = native.getReader();
    for (let i = 0; i < 5; i++) {
      const { done, value } = await reader.read();
      assert.not.ok(done);
      assert.is(value!.byteLength, 1024);
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(pulls <= 5 + 4, `5 chunks read, ${pulls} pulls`);
    await reader.cancel();
  });

  onRuntime(
    "toNativeReadableStream: cancel reaches our source with the reason; our error reaches the native reader by identity",
    async () => {
      let cancelled: unknown = "not cancelled";
      const source = new fuse.ReadableStream<Uint8Array>({
        pull(c) {
          c.enqueue(new Uint8Array([1]));
        },
        cancel(reason) {
          cancelled = reason;
        },
      });
      const native = adapter.toNativeReadableStream(source);
      const reader = native.getReader();
      await reader.read();
      const reason = new Error("consumer gave up");
      await reader.cancel(reason);
      assert.is(cancelled, reason, "the cancel reason, by identity");

      const boom = new Error("source failed");
      let sent = 0;
      const failing = new fuse.ReadableStream<Uint8Array>({
        pull(c) {
          if (++sent === 3) throw boom;
          c.enqueue(new Uint8Array([sent]));
        },
      });
      const r2 = adapter.toNativeReadableStream(failing).getReader();
      const got: number[] = [];
      const end = await settle(async () => {
        for (;;) {
          const { done, value } = await r2.read();
          if (done) return;
          got.push(...value!);
        }
      });
      assert.equal(got, [1, 2], "the chunks before the error");
      assert.not.ok(end.ok);
      assert.is(!end.ok && end.error, boom, "the same error object");
    },
  );

  onServer("toNativeReadableStream: a native Response takes it and the runtime's fetch sends it", async () => {
    const rows = renderRows(100);
    const expected = rows.join("");
    await withServer(
      async (req) => new Response(`${req.method}:${await req.text()}`),
      async (url) => {
        assert.is(await new Response(asBody(adapter.toNativeReadableStream(render(rows)))).text(), expected);
        const init = streamInit("POST", adapter.toNativeReadableStream(render(rows)));
        assert.is(await (await fetch(url, init)).text(), `POST:${expected}`);
      },
    );
  });

  onRuntime(
    "bodies of ours: backpressure (a slow reader of the body keeps our source paused), cancel and errors both ways",
    async () => {
      await patched(async () => {
        let pulls = 0;
        let cancelled: unknown = "not cancelled";
        const source = new fuse.ReadableStream<Uint8Array>({
          pull(c) {
            pulls++;
            c.enqueue(new Uint8Array(1024).fill(pulls & 255));
            if (pulls === 100_000) c.close();
          },
          cancel(reason) {
            cancelled = reason;
          },
        });
        const reader = new Response(asBody(source)).body!.getReader();
        let bytes = 0;
        for (let i = 0; i < 3; i++) {
          const { done, value } = await reader.read();
          assert.not.ok(done);
          bytes += value!.byteLength;
          await new Promise((r) => setTimeout(r, 10));
        }
        const paused = pulls;
        await new Promise((r) => setTimeout(r, 30));
        assert.is(pulls, paused, `the source stays paused while nobody reads (${pulls} pulls for ${bytes} bytes read)`);
        assert.ok(pulls * 1024 < bytes + 512 * 1024, `bounded read-ahead: ${pulls} pulls for ${bytes} bytes read`);
        const reason = new Error("client went away");
        await reader.cancel(reason);
        assert.is(cancelled, reason, "the cancel reason reaches our source by identity");

        const boom = new Error("render failed");
        let n = 0;
        const failing = new fuse.ReadableStream<Uint8Array>({
          pull(c) {
            if (++n === 4) throw boom;
            c.enqueue(enc.encode(`part ${n};`));
          },
        });
        const text = await settle(new Response(asBody(failing)).text());
        assert.not.ok(text.ok);
        assert.is(!text.ok && text.error, boom, "our error ends the body with the same object");
      });
    },
  );

  onServer(
    "an async-iterable body (a generator) is taken as natively: Response text() and body, Request text(), fetch",
    async () => {
      const gen = () => ({
        async *[Symbol.asyncIterator]() {
          yield enc.encode("from ");
          yield enc.encode("a generator");
        },
      });
      const observe = async (url: string) => {
        const out: Record<string, string> = {};
        const run = async (what: string, fn: () => Promise<string>) => {
          const r = await settle(fn);
          out[what] = r.ok
            ? r.value
            : `${(r as { error: Error }).error.name}: ${(r as { error: Error }).error.message}`;
        };
        await run("Response text()", () => new Response(gen() as unknown as BodyInit).text());
        await run("Response body", () => collectText(new Response(gen() as unknown as BodyInit).body!));
        await run(
          "Request text()",
          () =>
            new Request(url, { method: "POST", body: gen() as unknown as BodyInit, duplex: "half" } as RequestInit)
              .text(),
        );
        await run(
          "fetch",
          async () =>
            (await fetch(url, { method: "POST", body: gen() as unknown as BodyInit, duplex: "half" } as RequestInit))
              .text(),
        );
        return out;
      };
      await withServer(
        async (req) => new Response(`got ${await req.text()}`),
        async (url) => {
          const expected = await observe(url);
          assert.is(expected["Response text()"], "from a generator");
          assert.equal(await patched(() => observe(url)), expected);
        },
      );
    },
  );

  onServer(
    "new Request(url, init) and fetch(url, init) with a body of ours read init's other members as natively (inherited, non-enumerable, getters)",
    async () => {
      await withServer(
        async (req) => new Response(await describeRequest(req)),
        async (url) => {
          for (const [what, { make: init, expected: known }] of Object.entries(INIT_CASES)) {
            const expected = await describeRequest(new Native.Request(url, init(nativeOf(enc.encode("body")))));
            assert.is(expected, known);
            const fetched = await (await fetch(url, init(nativeOf(enc.encode("body"))) as RequestInit)).text();
            await patched(async () => {
              assert.is(
                await describeRequest(new Request(url, init(oursOf(enc.encode("body"))))),
                expected,
                `new Request: ${what}`,
              );
              assert.is(
                await (await fetch(url, init(oursOf(enc.encode("body"))) as RequestInit)).text(),
                fetched,
                `fetch: ${what}`,
              );
            });
          }
        },
      );
    },
  );

  onRuntime(
    "a body locked by a reader of response.body: text(), arrayBuffer(), blob(), clone() and a pipe as for a native body",
    async () => {
      const bytes = () => enc.encode("some body");
      const kinds: [string, () => unknown, () => unknown][] = [
        ["a string body", () => "some body", () => "some body"],
        ["a native stream body", () => nativeOf(bytes()), () => nativeOf(bytes())],
        ["a body of ours", () => nativeOf(bytes()), () => oursOf(bytes())],
      ];
      for (const [kind, native, ours] of kinds) {
        const expected = await lockedBodyOutcomes(Native.Response, native);
        assert.match(expected["locked text()"]!, /Error/, `${kind}: natively a locked body cannot be read`);
        const actual = await patched(() => lockedBodyOutcomes(Response, ours));
        assert.equal(actual, expected, kind);
      }
    },
  );

  onServer(
    "a Request whose body a reader of request.body holds: new Request(request) and fetch(request) as natively",
    async () => {
      await withServer(
        async (req) => new Response(await req.text()),
        async (url) => {
          const observe = async () => {
            const out: Record<string, string> = {};
            for (
              const [what, use] of [
                ["new Request(request)", (r: Request) => new Request(r)],
                ["fetch(request)", (r: Request) => fetch(r).then((res) => res.text())],
              ] as const
            ) {
              const request = new Request(url, { method: "POST", body: "some body" });
              request.body!.getReader();
              const r = await settle(async () => await use(request));
              out[what] = r.ok
                ? (r.value instanceof Request ? "a Request" : `ok ${String(r.value)}`)
                : `${(r as { error: Error }).error.name}: ${(r as { error: Error }).error.message}`;
            }
            return out;
          };
          const expected = await observe();
          assert.equal(await patched(observe), expected);
        },
      );
    },
  );

  onRuntime(
    "bodies of ours: cancel() after a read reaches our source with exactly its reason (none: undefined) and our cancel's failure, as for a native body",
    async () => {
      /** What the source saw and what the body's cancel() gave, for a body of `RS` read once, then cancelled. */
      const observe = async (
        RS: typeof Native.ReadableStream,
        Res: typeof Response,
        reason: unknown,
        failure: unknown,
      ) => {
        const seen: unknown[] = [];
        const source = new RS<Uint8Array>(
          {
            pull(c) {
              c.enqueue(enc.encode("chunk;"));
            },
            cancel(r) {
              seen.push(r);
              if (failure !== undefined) throw failure;
            },
          },
          { highWaterMark: 0 },
        );
        const reader = new Res(asBody(source)).body!.getReader();
        await reader.read();
        const result = await settle(reader.cancel(reason));
        return { seen, result: result.ok ? "fulfilled" : (result as { error: unknown }).error };
      };
      const failure = new Error("our cancel failed");
      for (
        const [what, reason, fails] of [["no reason", undefined, undefined], ["a reason", { why: "stop" }, undefined], [
          "a failing cancel",
          "r",
          failure,
        ]] as const
      ) {
        const expected = await observe(Native.ReadableStream, Native.Response, reason, fails);
        await patched(async () => {
          const actual = await observe(
            fuse.ReadableStream as unknown as typeof Native.ReadableStream,
            Response,
            reason,
            fails,
          );
          assert.is(actual.seen.length, 1, `${what}: our source cancelled once`);
          assert.is(actual.seen[0], expected.seen[0], `${what}: the reason our source saw`);
          assert.is(actual.result, expected.result, `${what}: what the body's cancel() gave`);
        });
      }
    },
  );

  onRuntime(
    "bodies of ours read whole (text, arrayBuffer, bytes, json) leave the Response as a native body leaves it",
    async () => {
      const json = '{"rows":[1,2,3],"name":"ümlaut"}';
      const parts = [json.slice(0, 7), json.slice(7, 20), json.slice(20)].map((p) => enc.encode(p));
      /** What a method returns and the Response's state afterwards, for a body of `make()`. */
      const observe = async (
        ResponseClass: typeof Response,
        make: () => unknown,
        method: "text" | "arrayBuffer" | "bytes" | "json",
      ) => {
        const r = new ResponseClass(asBody(make()));
        const value = await (r[method] as () => Promise<unknown>).call(r);
        const again = await settle((r.text as () => Promise<string>).call(r));
        return {
          // json(): the value as JSON text (edge-runtime's own json() parses in its host's realm, so its objects'
          // prototypes are not the worker's: only the value is compared).
          value: value instanceof ArrayBuffer
            ? [...new Uint8Array(value)]
            : value instanceof Uint8Array
            ? [...value]
            : method === "json"
            ? JSON.stringify(value)
            : value,
          type: Object.prototype.toString.call(value),
          bodyUsed: r.bodyUsed,
          locked: r.body?.locked,
          again: again.ok ? `ok ${again.value}` : `${(again.error as Error).name}: ${(again.error as Error).message}`,
        };
      };
      for (const method of ["text", "arrayBuffer", "bytes", "json"] as const) {
        if (typeof (Native.Response.prototype as unknown as Record<string, unknown>)[method] !== "function") continue;
        const expected = await observe(Native.Response, () => nativeOf(...parts.map((p) => p.slice())), method);
        await patched(async () => {
          const actual = await observe(Response, () => oursOf(...parts.map((p) => p.slice())), method);
          assert.equal(actual, expected, method);
        });
      }
      await patched(async () => {
        const bad = await settle(new Response(asBody(oursOf(enc.encode("{not json")))).json());
        assert.instance(!bad.ok && bad.error, SyntaxError, "json() of bad JSON: a SyntaxError");
        const copy = new Response(asBody(oursOf(...parts.map((p) => p.slice()))));
        const clone = copy.clone();
        assert.is(JSON.stringify(await clone.json()), JSON.stringify(JSON.parse(json)), "a clone, then json()");
        assert.is(await copy.text(), json);
      });
    },
  );

  // ---- bad input

  const BAD_CHUNKS: { chunk: unknown; found: RegExp; stringified: string }[] = [
    { chunk: "a string chunk", found: /string/i, stringified: "a string chunk" },
    { chunk: 42, found: /number/i, stringified: "42" },
    { chunk: { kind: "an object" }, found: /object/i, stringified: "[object Object]" },
    { chunk: [1, 2, 3], found: /array|object/i, stringified: "1,2,3" },
  ];

  /**
   * A TypeError that names what was found; or, for a runtime that wraps it (Deno's fetch: a TypeError
   * "fetch failed" whose `cause` carries our message, re-created on the way back from the network layer),
   * a TypeError with that message in its `cause` chain.
   */
  const assertBadChunkError = (error: unknown, bad: (typeof BAD_CHUNKS)[number], where: string): void => {
    assert.instance(error, TypeError, `${where}: a TypeError (got ${String(error)})`);
    const messages: string[] = [];
    for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
      if (bad.found.test(e.message) && /BufferSource|ArrayBuffer/.test(e.message)) return;
      messages.push(e.message);
    }
    assert.unreachable(
      `${where}: no TypeError in the cause chain says what was found (${bad.found}): ${messages.join(" <- ")}`,
    );
  };

  onRuntime(
    "bodies: every BufferSource chunk of ours (views at offsets, ArrayBuffer, DataView, Uint16Array) gives its exact bytes",
    async () => {
      const bytes = enc.encode("0123456789abcdef");
      const chunks = (): unknown[] => [
        bytes.subarray(0, 3),
        bytes.slice(3, 6).buffer,
        new DataView(bytes.slice(6, 9).buffer),
        new Uint16Array(bytes.slice(10, 14).buffer),
        bytes.subarray(9, 10),
        new Uint8Array(0),
        bytes.subarray(14),
      ];
      const expected = "012345678" + "abcd" + "9" + "ef";
      if (bodyChunks === "as native") {
        // The runtime reads our stream itself: each way ends as it ends for a native stream of the same chunks.
        const ways: [string, (body: unknown) => Promise<string>][] = [
          ["new Response(body).text()", (body) => new Response(asBody(body)).text()],
          [
            "new Request(url, { body }).text()",
            (body) => new Request("http://127.0.0.1/", streamInit("POST", body)).text(),
          ],
          ["new Response(body).clone().text()", (body) => new Response(asBody(body)).clone().text()],
        ];
        for (const [way, read] of ways) {
          const native = await outcomeOf(() => read(nativeOf(...chunks())));
          const ours = await patched(() => outcomeOf(() => read(oursOf(...chunks()))));
          assert.is(ours, native, `${way}: ours as a native stream of the same chunks`);
        }
        assert.is(
          await patched(() => new Response(asBody(oursOf(bytes.subarray(0, 9), bytes.subarray(9)))).text()),
          "0123456789abcdef",
          "Uint8Array chunks",
        );
        return;
      }
      await patched(async () => {
        assert.is(await new Response(asBody(oursOf(...chunks()))).text(), expected, "new Response(ours).text()");
        assert.is(
          await new Request("http://127.0.0.1/", streamInit("POST", oursOf(...chunks()))).text(),
          expected,
          "new Request(url, { body: ours })",
        );
        const copy = new Response(asBody(oursOf(...chunks()))).clone();
        assert.is(await copy.text(), expected, "clone()");
      });
    },
  );

  onRuntime(
    "bodies: a TextEncoderStream's readable side read whole gives the runtime's own result, and stays locked",
    async () => {
      const BOOM = new Error("boom");
      const long = Array.from({ length: 2000 }, (_, i) => `row ${i}: Zürich € 😀 `);
      const cases: [string, unknown[], number?][] = [
        ["ASCII and non-ASCII", ["plain ", "Zürich € ", "😀", ""]],
        ["a surrogate pair cut across chunks", ["a\ud83d", "\ude00b"]],
        ["lone surrogates, a leading one held at the end", ["\ude00x", "y\ud800", "z", "\ud83d"]],
        ["byte order marks, leading and inside", ["", "\ufeff", "\ufeffa", "\ufeffb\ufeff"]],
        ["no text at all", ["", ""]],
        ["chunks that are not strings (ToString)", [12, { toString: () => "obj" }, null, true]],
        ["JSON text", ['{"a": ', '["ü", 1]', "}"]],
        ["2,000 chunks", long],
        ["the source errors after two chunks", ["one ", "two "], 2],
      ];
      const hasBytes = typeof (Native.Response.prototype as { bytes?: unknown }).bytes === "function";
      // json() for the JSON text, text() and the byte methods for the others.
      const methodsOf = (name: string): string[] =>
        name === "JSON text" ? ["text", "json"] : hasBytes ? ["text", "arrayBuffer", "bytes"] : ["text", "arrayBuffer"];
      // The global classes of the side under test (free identifiers): the runtime's own, or ours while patched.
      const describe = async ([, chunks, errorAt]: [string, unknown[], number?], method: string): Promise<string> => {
        let i = 0;
        const source = new ReadableStream<unknown>({
          pull(controller) {
            if (i === errorAt) controller.error(BOOM);
            else if (i < chunks.length) controller.enqueue(chunks[i++]);
            else controller.close();
          },
        });
        const encoded = source.pipeThrough(new TransformStream()).pipeThrough(
          new TextEncoderStream() as unknown as TransformStream<unknown, Uint8Array>,
        );
        const owner = new Response(asBody(encoded));
        const read = (owner as unknown as Record<string, () => Promise<unknown>>)[method]!;
        const r = await settle(() => read.call(owner));
        let value: string;
        if (!r.ok) value = r.error === BOOM ? "the source's error" : await outcomeOf(() => Promise.reject(r.error));
        // Bytes as numbers: a decoder would drop a leading byte order mark.
        else if (r.value instanceof ArrayBuffer) value = `ArrayBuffer ${new Uint8Array(r.value).join(",")}`;
        else if (r.value instanceof Uint8Array) value = `Uint8Array ${r.value.join(",")}`;
        else value = JSON.stringify(r.value);
        return `${value} | bodyUsed ${owner.bodyUsed} | locked ${encoded.locked}`;
      };
      for (const c of cases) {
        for (const method of methodsOf(c[0])) {
          const expected = await describe(c, method);
          assert.is(await patched(() => describe(c, method)), expected, `${c[0]}, ${method}()`);
        }
      }
    },
  );

  onRuntime(
    "bad input: a chunk that is not a BufferSource ends Response/Request bodies with a TypeError naming it",
    async () => {
      if (bodyChunks === "as native") {
        // The runtime's own rule for a native stream of such chunks applies, error for error.
        for (const bad of BAD_CHUNKS) {
          const what = JSON.stringify(bad.chunk);
          const read = (body: unknown) => new Response(asBody(body)).text();
          const native = await outcomeOf(() => read(nativeOf<unknown>(enc.encode("ok"), bad.chunk)));
          const ours = await patched(() => outcomeOf(() => read(oursOf<unknown>(enc.encode("ok"), bad.chunk))));
          // (a string chunk is text natively on Bun; anything else is refused by every runtime)
          if (typeof bad.chunk !== "string") {
            assert.ok(native.startsWith("TypeError: "), `a native stream with ${what}: ${native}`);
          }
          assert.is(ours, native, `new Response(ours with ${what}).text() ends as natively`);
          if (!native.includes(bad.stringified)) {
            assert.not.ok(ours.includes(bad.stringified), `${what} was stringified`);
          }
        }
        return;
      }
      await patched(async () => {
        for (const bad of BAD_CHUNKS) {
          const what = JSON.stringify(bad.chunk);
          const r1 = await settle(new Response(asBody(oursOf<unknown>(enc.encode("ok"), bad.chunk))).text());
          assert.not.ok(
            r1.ok,
            `new Response(ours with ${what}).text() must fail, got ${r1.ok && JSON.stringify(r1.value)}`,
          );
          assertBadChunkError(!r1.ok && r1.error, bad, `Response text() with ${what}`);

          const r2 = await settle(new Response(asBody(oursOf<unknown>(bad.chunk))).arrayBuffer());
          assert.not.ok(r2.ok, `arrayBuffer() with ${what}`);
          assertBadChunkError(!r2.ok && r2.error, bad, `Response arrayBuffer() with ${what}`);

          const request = new Request("http://127.0.0.1/", streamInit("POST", oursOf<unknown>(bad.chunk)));
          const r3 = await settle(request.text());
          assert.not.ok(r3.ok, `Request text() with ${what}`);
          assertBadChunkError(!r3.ok && r3.error, bad, `Request text() with ${what}`);
        }
      });
      // without the patch, through toNativeReadableStream: the runtime's own rules for a native stream of
      // such chunks apply (Bun encodes strings as UTF-8 there), but nothing else is ever turned into text
      for (const bad of BAD_CHUNKS.filter((b) => typeof b.chunk !== "string")) {
        const r = await settle(new Response(asBody(adapter.toNativeReadableStream(oursOf<unknown>(bad.chunk)))).text());
        assert.not.ok(
          r.ok && r.value.includes(bad.stringified),
          `toNativeReadableStream: ${JSON.stringify(bad.chunk)} was stringified`,
        );
      }
    },
  );

  if (bodyChunks === "as native") {
    onRuntime(
      "body chunks: every chunk of ours (strings, bytes, anything else) gives what the runtime gives for a native stream of it, errors included",
      async () => {
        const chunkSets: unknown[][] = [
          ["hello", " ", "wörld"],
          ["\ud83d", "\ude00"],
          ["\ufeffbom"],
          ["a", enc.encode("b"), "c"],
          [enc.encode("ok"), "x", new Uint16Array([0x6968])],
          ...BAD_CHUNKS.map((b) => [enc.encode("ok"), b.chunk]),
          ["a", null, "b"],
          [undefined],
          [true],
          [new Blob(["blob"])],
        ];
        const uses: [string, (body: unknown) => Promise<unknown>][] = [
          ["Response text()", (b) => new Response(asBody(b)).text()],
          ["Response arrayBuffer()", async (b) => [...new Uint8Array(await new Response(asBody(b)).arrayBuffer())]],
          ["Response bytes()", async (b) => [...await (new Response(asBody(b)) as unknown as Body2).bytes()]],
          ["Response json()", (b) => new Response(asBody(b)).json()],
          ["Response blob()", async (b) => await (await new Response(asBody(b)).blob()).text()],
          ["Request text()", (b) => new Request("http://127.0.0.1/", streamInit("POST", b)).text()],
        ];
        const outcome = async (fn: () => Promise<unknown>): Promise<string> => {
          const r = await settle(fn);
          if (r.ok) return `value ${JSON.stringify(r.value)}`;
          const e = (r as { error: unknown }).error as { name?: unknown; code?: unknown; message?: unknown };
          return `${String(e?.name)} ${String(e?.code)} ${String(e?.message)}`;
        };
        for (const chunks of chunkSets) {
          for (const [use, fn] of uses) {
            const native = await outcome(() => fn(nativeOf(...chunks)));
            const ours = await patched(() => outcome(() => fn(oursOf(...chunks))));
            assert.is(ours, native, `${use} of ${describeChunks(chunks)}`);
          }
        }
      },
    );
  }

  onServer(
    "bad input: a bad chunk in a served body or an uploaded body is never stringified onto the wire",
    async () => {
      await patched(async () => {
        const bad = BAD_CHUNKS[2]!;
        let uploadSeen = "";
        await withServer(
          async (req) => {
            if (req.method === "POST") {
              const r = await settle(req.text());
              uploadSeen = r.ok ? r.value : `error: ${String(r.error)}`;
              return new Response("done");
            }
            return new Response(oursOf<unknown>(enc.encode("<p>ok</p>"), bad.chunk, enc.encode("<p>after</p>")));
          },
          async (url) => {
            // the runtime may fail the response before or after its head was sent
            const got = await settle(fetch(url).then((res) => res.text()));
            if (got.ok) {
              assert.not.ok(got.value.includes(bad.stringified), `stringified onto the wire: ${got.value}`);
              assert.not.ok(got.value.includes("after"), `a chunk after the bad one was sent: ${got.value}`);
            }
            const upload = await settle(fetch(url, streamInit("POST", oursOf<unknown>(enc.encode("x"), bad.chunk))));
            if (!upload.ok && bodyChunks !== "as native") assertBadChunkError(upload.error, bad, "fetch upload");
            if (bodyChunks === "as native") {
              // the runtime's own outcome for a native stream of the same chunks (taken without the patch)
              adapter.unpatchGlobalWebStreams();
              const native = await settle(
                fetch(url, streamInit("POST", nativeOf<unknown>(enc.encode("x"), bad.chunk))),
              );
              adapter.patchGlobalWebStreams();
              assert.is(upload.ok, native.ok, "the upload fails as the runtime's own fails");
              if (!upload.ok && !native.ok) {
                const [a, b] = [upload, native].map((r) => (r as { error: unknown }).error) as {
                  name?: string;
                  code?: string;
                  message?: string;
                }[];
                assert.equal([a?.name, a?.code, a?.message], [b?.name, b?.code, b?.message], "with the same error");
              }
            }
            assert.not.ok(
              uploadSeen.includes(bad.stringified),
              `the server received the stringified chunk: ${uploadSeen}`,
            );
          },
        );
      });
    },
  );

  onRuntime(
    "bad input: a locked or disturbed stream gets the runtime's error for a native stream in the same state",
    async () => {
      type State = "locked" | "disturbed";
      const make = async <S extends { getReader(): { read(): Promise<unknown>; releaseLock(): void } }>(
        stream: S,
        state: State,
      ): Promise<S> => {
        const reader = stream.getReader();
        if (state === "disturbed") {
          await reader.read();
          reader.releaseLock();
        }
        return stream;
      };
      const uses: [string, (body: unknown) => unknown][] = [
        ["new Response", (body) => new Response(asBody(body))],
        ["new Request", (body) => new Request("http://127.0.0.1/", streamInit("POST", body))],
        ["fetch", (body) => fetch("http://127.0.0.1:9/", streamInit("POST", body))],
      ];
      /**
       * How `use` ends for a body in that state: the error it throws (name, message, class), or, where the
       * runtime takes the body (workerd does), how reading what it made ends.
       */
      const ending = async (body: () => Promise<unknown>, use: (body: unknown) => unknown) => {
        try {
          const made = await use(await body());
          const read = (made as { text?: () => Promise<string> } | undefined)?.text;
          return { made: typeof read === "function" ? await outcomeOf(() => read.call(made)) : "made" };
        } catch (e) {
          const error = e as Error;
          return { name: error.name, message: error.message, proto: Object.getPrototypeOf(error) as unknown };
        }
      };
      for (const state of ["locked", "disturbed"] as State[]) {
        for (const [name, use] of uses) {
          const expected = await ending(() => make(nativeOf(enc.encode("a"), enc.encode("b")), state), use);
          await patched(async () => {
            const actual = await ending(() => make(oursOf(enc.encode("a"), enc.encode("b")), state), use);
            assert.equal(actual, expected, `${state} ${name}: ends as for a native stream in that state`);
          });
        }
      }
    },
  );
}
