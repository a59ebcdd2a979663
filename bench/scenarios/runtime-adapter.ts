/**
 * Deno and Bun adapter scenarios (ids `rt-…`, group 12): the code an application writes against the
 * *global* stream classes, `Response`, `fetch` and the runtime's server (`Deno.serve` / `Bun.serve`),
 * run once per implementation:
 *
 * - `native`: no patch, the runtime's own classes;
 * - `ours`: the runtime adapter's `patchGlobalWebStreams()` (fusestreams/deno, fusestreams/bun). An
 *   adapter without a patch (fusestreams before issue 17) is measured the way an application had to
 *   write it then: fusestreams' classes imported explicitly, native bodies turned into ours with
 *   `ReadableStream.from(body)`, ours handed to `Response` as an async iterable (the row's note says so).
 *
 * As in node-adapter.ts, a patch is switched only when the implementation being measured changes (once
 * per round), the worker imports this module once per implementation (`runtime-adapter.ts?impl=…`), and
 * every run verifies its bytes (count and checksum). Deno and Bun only. The servers listen on 127.0.0.1,
 * port 0, one per process, unref'd so they never keep the worker alive.
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type Data, freshChunks } from "../lib/catalog.ts";
import { Tally } from "../lib/tally.ts";

type RS = typeof ReadableStream;
type WS = typeof WritableStream;
type TS = typeof TransformStream;

/** One runnable benchmark: `prepare` (untimed) makes the argument of `run` (timed). */
export interface RuntimeBench {
  prepare?: () => Uint8Array<ArrayBuffer>[];
  run: (fresh: Uint8Array<ArrayBuffer>[]) => Promise<void>;
  note?: string;
}

/** The classes the scenario code uses, and how it turns a native stream into one of them. */
interface Classes {
  RS: RS;
  WS: WS;
  TS: TS;
  /** a native stream (a Response body) as a stream `TS` can be piped from */
  adopt(native: ReadableStream<Uint8Array>): ReadableStream<Uint8Array>;
}

/** What this implementation contributes. */
interface Impl {
  enter(): void;
  leave(): void;
  classes(): Classes;
  note?: string;
}

interface DenoLike {
  open(path: string): Promise<{ readable: ReadableStream<Uint8Array> }>;
  serve(
    options: { hostname: string; port: number; onListen?: () => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { addr: { port: number }; unref(): void };
}
interface BunLike {
  file(path: string): Blob;
  serve(
    options: { hostname: string; port: number; fetch: (request: Request) => Response | Promise<Response> },
  ): { port: number; unref(): void };
}

const G = globalThis as unknown as { Deno?: DenoLike; Bun?: BunLike };
const runtime = G.Deno !== undefined ? "deno" : G.Bun !== undefined ? "bun" : undefined;

/** The runtime's classes as they are right now (patched or not). */
function globalClasses(): Classes {
  return {
    RS: globalThis.ReadableStream,
    WS: globalThis.WritableStream,
    TS: globalThis.TransformStream,
    adopt: (native) => native,
  };
}

/** The scenarios of one implementation (see {@link load}). */
export interface RuntimeBenches {
  /**
   * The benchmark for scenario `id`, or undefined when this implementation (or runtime) takes no part.
   * `NativeRS` is the runtime's own ReadableStream.
   */
  build(id: string, data: Data, NativeRS: RS): RuntimeBench | undefined;
}

/**
 * Loads implementation `name` (`native` or `ours`). `oursUrl` is the URL of the fusestreams build under
 * test (mod.ts); the runtime's adapter sits at adapters/<runtime>/mod.ts next to it. The state lives in
 * the returned object, not in the module: Bun loads `runtime-adapter.ts?impl=…` once for all queries.
 */
export async function load(oursUrl: string, implName: string): Promise<RuntimeBenches> {
  let impl: Impl | undefined;
  let loadError: string | undefined;
  try {
    impl = await loadImpl(oursUrl, implName);
  } catch (error) {
    loadError = error instanceof Error ? error.message : String(error);
  }
  return {
    build(id, data, NativeRS) {
      if (loadError !== undefined) throw new Error(`could not load ${implName}: ${loadError}`);
      return impl && buildBench(id, data, NativeRS, implName, impl);
    },
  };
}

async function loadImpl(oursUrl: string, implName: string): Promise<Impl | undefined> {
  if (runtime === undefined) return undefined;
  if (implName === "native") return { enter() {}, leave() {}, classes: globalClasses };
  if (implName !== "ours" && implName !== "alt") return undefined; // alt: another checkout, as ours
  const ext = oursUrl.endsWith(".ts") ? "ts" : "js";
  const adapter = (await import(new URL(`./adapters/${runtime}/mod.${ext}`, oursUrl).href)) as {
    patchGlobalWebStreams?: () => void;
    unpatchGlobalWebStreams?: () => void;
    ReadableStream: RS & { from(iterable: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> };
    WritableStream: WS;
    TransformStream: TS;
  };
  if (typeof adapter.patchGlobalWebStreams === "function" && typeof adapter.unpatchGlobalWebStreams === "function") {
    return { enter: adapter.patchGlobalWebStreams, leave: adapter.unpatchGlobalWebStreams, classes: globalClasses };
  }
  const classes: Classes = {
    RS: adapter.ReadableStream,
    WS: adapter.WritableStream,
    TS: adapter.TransformStream,
    adopt: (native) => adapter.ReadableStream.from(native),
  };
  return {
    enter() {},
    leave() {},
    classes: () => classes,
    note:
      "no global patch: fusestreams' classes imported, ReadableStream.from(native body), Response(ours) as an async iterable",
  };
}

/** The patch currently on, shared by every copy of this module. */
const ACTIVE = Symbol.for("fusestreams.bench.runtimeAdapterActive");
interface Active {
  owner: string;
  leave(): void;
}

/** Puts `impl`'s patch on (taking off another implementation's first); returns its classes. */
function activatePatch(implName: string, impl: Impl): Classes {
  const slot = globalThis as unknown as { [ACTIVE]?: Active };
  const current = slot[ACTIVE];
  if (current?.owner !== implName) {
    current?.leave();
    slot[ACTIVE] = undefined;
    impl.enter();
    slot[ACTIVE] = { owner: implName, leave: impl.leave };
  }
  return impl.classes();
}

// ---- the loopback server (one per process, shared by the implementations through globalThis) ----

type Handler = (request: Request) => Response | Promise<Response>;
const SERVER = Symbol.for("fusestreams.bench.runtimeAdapterServer");
interface ServerSlot {
  url?: string;
  routes: Map<string, Handler>;
  /** temporary files with a scenario's bytes, by size */
  files: Map<string, string>;
  dir?: string;
}

function serverSlot(): ServerSlot {
  const slot = globalThis as unknown as { [SERVER]?: ServerSlot };
  return (slot[SERVER] ??= { routes: new Map(), files: new Map() });
}

/** The server's base URL, starting it on first use. */
function serverUrl(): string {
  const s = serverSlot();
  if (s.url !== undefined) return s.url;
  const handler: Handler = (request) => {
    const route = s.routes.get(new URL(request.url).pathname);
    return route ? route(request) : new Response("not found", { status: 404 });
  };
  if (G.Deno !== undefined) {
    const server = G.Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
    server.unref();
    s.url = `http://127.0.0.1:${server.addr.port}`;
  } else {
    const server = G.Bun!.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
    server.unref();
    s.url = `http://127.0.0.1:${server.port}`;
  }
  return s.url;
}

/** A temporary file with the scenario's bytes (one per size, removed when the process exits). */
function dataFile(data: Data): string {
  const slot = serverSlot();
  const key = `${data.count}x${data.size}`;
  let path = slot.files.get(key);
  if (path === undefined) {
    if (slot.dir === undefined) {
      const dir = mkdtempSync(join(tmpdir(), "fusestreams-bench-"));
      slot.dir = dir;
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    }
    path = join(slot.dir, `${key}.bin`);
    const all = new Uint8Array(data.bytes);
    let offset = 0;
    for (const chunk of data.chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    writeFileSync(path, all);
    slot.files.set(key, path);
  }
  return path;
}

function passOn(TS: TS): TransformStream<Uint8Array, Uint8Array> {
  return new TS<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
    },
  });
}

function tallySink(WS: WS, tally: Tally): WritableStream<Uint8Array> {
  return new WS<Uint8Array>({
    write(chunk) {
      tally.add(chunk);
    },
  });
}

/** A native byte stream of `fresh` (pull enqueues one chunk), as fetch and the runtime hand out bodies. */
function nativeByteSource(NativeRS: RS, fresh: Uint8Array<ArrayBuffer>[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new NativeRS({
    type: "bytes",
    pull(controller) {
      controller.enqueue(fresh[i++]!);
      if (i === fresh.length) controller.close();
    },
  });
}

/** A byte stream of `fresh` (pull enqueues one), made with `RS` (the global class: ours when patched). */
function byteSource(RS: RS, fresh: Uint8Array<ArrayBuffer>[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new RS({
    type: "bytes",
    pull(controller) {
      controller.enqueue(fresh[i++]!);
      if (i === fresh.length) controller.close();
    },
  });
}

/** A default stream of the scenario's chunks (pull enqueues one), made with `RS`. */
function pullSource(RS: RS, chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new RS<Uint8Array>({
    pull(controller) {
      controller.enqueue(chunks[i++]!);
      if (i === chunks.length) controller.close();
    },
  });
}

/**
 * Hono's `stream()` / `streamText()` body (its StreamingApi): each chunk's `writer.write()` awaited into a
 * `new TransformStream()`, whose readable side an async `pull()` reads into the body, one chunk per wake.
 */
function writerPullBody(RS: RS, TS: TS, chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  const { readable, writable } = new TS<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const reader = readable.getReader();
  void (async () => {
    for (const chunk of chunks) await writer.write(chunk);
    await writer.close();
  })();
  return new RS<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>, tally: Tally): Promise<void> {
  const reader = body.getReader();
  for (;;) {
    const result = await reader.read();
    if (result.done) break;
    tally.add(result.value);
  }
}

function buildBench(id: string, data: Data, NativeRS: RS, implName: string, impl: Impl): RuntimeBench | undefined {
  const activate = (): Classes => activatePatch(implName, impl);
  const { chunks, expect } = data;
  const note = impl.note;
  const serverName = runtime === "deno" ? "Deno.serve" : "Bun.serve";

  switch (id) {
    case "rt-response-forward":
      return {
        ...(note ? { note } : {}),
        prepare: () => freshChunks(data),
        async run(fresh) {
          const { WS, TS, adopt } = activate();
          const body = new Response(nativeByteSource(NativeRS, fresh)).body!;
          const tally = new Tally();
          await adopt(body).pipeThrough(passOn(TS)).pipeTo(tallySink(WS, tally));
          tally.check(expect, "response forwarding");
        },
      };

    case "rt-fetch-3": {
      const path = `/fetch/${data.count}x${data.size}`;
      // the server side is the same native code for every implementation
      serverSlot().routes.set(path, () => new Response(nativeByteSource(NativeRS, freshChunks(data))));
      return {
        ...(note ? { note } : {}),
        async run() {
          const { WS, TS, adopt } = activate();
          const response = await fetch(serverUrl() + path);
          const tally = new Tally();
          await adopt(response.body!)
            .pipeThrough(passOn(TS))
            .pipeThrough(passOn(TS))
            .pipeThrough(passOn(TS))
            .pipeTo(tallySink(WS, tally));
          tally.check(expect, "fetch -> 3 transforms");
        },
      };
    }

    case "rt-response-text":
      return {
        ...(note ? { note } : {}),
        async run() {
          const { RS } = activate();
          const text = await new Response(pullSource(RS, chunks) as unknown as BodyInit).text();
          const tally = new Tally();
          tally.addAscii(text);
          tally.check(expect, "new Response(stream).text()");
        },
      };

    case "rt-response-bytes-text":
      return {
        ...(note ? { note } : {}),
        prepare: () => freshChunks(data),
        async run(fresh) {
          const { RS } = activate();
          const text = await new Response(byteSource(RS, fresh) as unknown as BodyInit).text();
          const tally = new Tally();
          tally.addAscii(text);
          tally.check(expect, "new Response(byte stream).text()");
        },
      };

    case "rt-response-bytes-forward":
      return {
        ...(note ? { note } : {}),
        prepare: () => freshChunks(data),
        async run(fresh) {
          const { RS, WS, TS } = activate();
          const body = new Response(byteSource(RS, fresh) as unknown as BodyInit).body!;
          const tally = new Tally();
          await body.pipeThrough(passOn(TS)).pipeTo(tallySink(WS, tally));
          tally.check(expect, "byte-stream Response forwarding");
        },
      };

    case "rt-response-read":
      return {
        ...(note ? { note } : {}),
        async run() {
          const { RS } = activate();
          const tally = new Tally();
          await readAll(new Response(pullSource(RS, chunks) as unknown as BodyInit).body!, tally);
          tally.check(expect, "new Response(stream).body read by a reader loop");
        },
      };

    case "rt-response-rewrap":
      return {
        ...(note ? { note } : {}),
        async run() {
          const { RS, TS } = activate();
          // Hono's compress / etag shape: the route's Response, its body piped on by a middleware into a new one.
          const route = new Response(pullSource(RS, chunks) as unknown as BodyInit);
          const wrapped = new Response(
            (route.body as unknown as ReadableStream<Uint8Array>).pipeThrough(passOn(TS)) as unknown as BodyInit,
            route,
          );
          const tally = new Tally();
          tally.add(new Uint8Array(await wrapped.arrayBuffer()));
          tally.check(expect, "new Response(route.body.pipeThrough(transform), route).arrayBuffer()");
        },
      };

    case "rt-response-writer-pull":
      return {
        ...(note ? { note } : {}),
        async run() {
          const { RS, TS } = activate();
          const bytes = await new Response(writerPullBody(RS, TS, chunks) as unknown as BodyInit).arrayBuffer();
          const tally = new Tally();
          tally.add(new Uint8Array(bytes));
          tally.check(expect, "writer -> TransformStream -> async pull() -> new Response(s).arrayBuffer()");
        },
      };

    case "rt-request-echo": {
      const body = new Uint8Array(4096);
      for (let i = 0; i < body.length; i++) body[i] = i & 0xff;
      return {
        ...(note ? { note } : {}),
        async run() {
          const { TS } = activate();
          for (let i = 0; i < 64; i++) {
            const request = new Request("http://127.0.0.1/echo", { method: "POST", body });
            const echoed = new Response(request.body!.pipeThrough(passOn(TS)) as unknown as BodyInit);
            const bytes = new Uint8Array(await echoed.arrayBuffer());
            if (bytes.byteLength !== body.byteLength || bytes[4095] !== 0xff) {
              throw new Error(`rt-request-echo: ${bytes.byteLength} bytes echoed, expected ${body.byteLength}`);
            }
          }
        },
      };
    }

    case "rt-serve-0":
    case "rt-serve-3":
    case "rt-serve-writer": {
      // rt-serve-0: the source itself is the body (a stream that is no transform's readable side);
      // rt-serve-writer: Hono's stream() shape, one chunk per wake
      const writer = id === "rt-serve-writer";
      const transforms = id === "rt-serve-3" ? 3 : 0;
      const path = `/${writer ? "serve-writer" : `serve${transforms}`}-${implName}/${data.count}x${data.size}`;
      serverSlot().routes.set(path, () => {
        const { RS, TS } = impl.classes();
        if (writer) return new Response(writerPullBody(RS, TS, chunks) as unknown as BodyInit);
        let out = pullSource(RS, chunks);
        for (let k = 0; k < transforms; k++) out = out.pipeThrough(passOn(TS));
        return new Response(out as unknown as BodyInit);
      });
      const body = writer ? "Hono's stream() shape" : `pull source -> ${transforms} transforms`;
      return {
        note: `${
          note ? `${note}; ` : ""
        }${serverName} route: ${body} -> new Response(); client: fetch() + arrayBuffer()`,
        async run() {
          activate();
          const response = await fetch(serverUrl() + path);
          const tally = new Tally();
          tally.add(new Uint8Array(await response.arrayBuffer()));
          tally.check(expect, `${serverName} route -> loopback client`);
        },
      };
    }

    case "rt-proxy": {
      // A route that forwards another response's body untouched: with the patch, `upstream.body` is one of
      // our shells, and `new Response(shell)` must give the runtime its own (resource-backed) stream back.
      const file = dataFile(data);
      const filePath = `/file/${data.count}x${data.size}`;
      serverSlot().routes.set(
        filePath,
        async () =>
          G.Deno !== undefined ? new Response((await G.Deno.open(file)).readable) : new Response(G.Bun!.file(file)),
      );
      const path = `/proxy-${implName}/${data.count}x${data.size}`;
      serverSlot().routes.set(path, async () => new Response((await fetch(serverUrl() + filePath)).body));
      return {
        note: `${
          note ? `${note}; ` : ""
        }${serverName} route: new Response((await fetch(file route)).body); client: fetch() + arrayBuffer()`,
        async run() {
          activate();
          const response = await fetch(serverUrl() + path);
          const tally = new Tally();
          tally.add(new Uint8Array(await response.arrayBuffer()));
          tally.check(expect, "proxy route -> loopback client");
        },
      };
    }

    // ---- floors (native only): the same I/O without the transforms and pipes ----

    case "rt-floor-response-forward":
      if (implName !== "native") return undefined;
      return {
        note:
          "the native byte source of rt-response-forward read by a bare reader loop: no Response, transform or sink",
        prepare: () => freshChunks(data),
        async run(fresh) {
          activate();
          const tally = new Tally();
          await readAll(nativeByteSource(NativeRS, fresh), tally);
          tally.check(expect, "floor: native reader loop");
        },
      };

    case "rt-floor-fetch": {
      if (implName !== "native") return undefined;
      const path = `/floor-fetch/${data.count}x${data.size}`;
      serverSlot().routes.set(path, () => new Response(nativeByteSource(NativeRS, freshChunks(data))));
      return {
        note: "rt-fetch-3's request and response, the native body read by a reader loop: no transform, no pipe",
        async run() {
          activate();
          const response = await fetch(serverUrl() + path);
          const tally = new Tally();
          await readAll(response.body!, tally);
          tally.check(expect, "floor: fetch -> reader loop");
        },
      };
    }

    case "rt-floor-serve": {
      if (implName !== "native") return undefined;
      const path = `/floor-serve/${data.count}x${data.size}`;
      serverSlot().routes.set(path, () => new Response(pullSource(NativeRS, chunks)));
      return {
        note: `rt-serve-3's ${serverName} route without the transforms: a native pull source as the body`,
        async run() {
          activate();
          const response = await fetch(serverUrl() + path);
          const tally = new Tally();
          tally.add(new Uint8Array(await response.arrayBuffer()));
          tally.check(expect, "floor: route without transforms");
        },
      };
    }
  }
  return undefined;
}
