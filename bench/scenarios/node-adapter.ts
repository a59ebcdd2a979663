/**
 * Node.js adapter scenarios (ids `node-…`): the code a Node.js application writes against the *global*
 * stream classes, `Response`, `fetch` and node:stream, run once per implementation with that
 * implementation's global patch on:
 *
 * - `native`: no patch, the runtime's own classes;
 * - `ours`: fusestreams' `patchGlobalWebStreams()` (adapters/node);
 * - `fast`: experimental-fast-webstreams' `patchGlobalWebStreams()`.
 *
 * A patch is switched only when the implementation being measured changes (the worker measures one
 * implementation for a whole round), never per iteration: the first iteration after a switch pays for
 * it, the median does not. Like web.ts, the worker imports this module once per implementation
 * (`node-adapter.ts?impl=…`). Node.js only; every run verifies its bytes (count and checksum).
 * @module
 */
import { Buffer } from "node:buffer";
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, get, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Data, type Expect, expectOf, freshChunks } from "../lib/catalog.ts";
import { pushInBursts } from "../lib/bursts.ts";
import { Tally } from "../lib/tally.ts";

/** One runnable benchmark: `prepare` (untimed) makes the argument of `run` (timed). */

/** An in-memory node:stream Readable pushing the prepared chunks, one per _read(). */
function memoryReadable(fresh: Uint8Array[]): Readable {
  let i = 0;
  return new Readable({
    read() {
      this.push(fresh[i++]!);
      if (i === fresh.length) this.push(null);
    },
  });
}

/** A node:stream Writable that tallies what it is given and acknowledges each write at once. */
function tallyWritable(tally: Tally): Writable {
  return new Writable({
    write(chunk: Uint8Array, _encoding, callback) {
      tally.add(chunk);
      callback();
    },
  });
}

export interface AdapterBench {
  prepare?: () => Uint8Array<ArrayBuffer>[];
  run: (fresh: Uint8Array<ArrayBuffer>[]) => Promise<void>;
  note?: string;
}

/** What this implementation contributes: its patch, and for `ours` the adapter's converters. */
interface Patch {
  enter(): void;
  leave(): void;
  fromNodeReadable?: (readable: Readable, options?: { highWaterMark?: number }) => ReadableStream<Uint8Array>;
  fromNodeWritable?: (writable: Writable) => WritableStream<Uint8Array>;
}

const implName = new URL(import.meta.url).searchParams.get("impl") ?? "";
const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
let patch: Patch | undefined;
let loadError: string | undefined;

/**
 * Loads this implementation's patch. `oursUrl` is the URL of the fusestreams build under test (mod.ts or
 * dist/mod.js); its Node adapter sits at adapters/node/mod.* next to it.
 */
export async function load(oursUrl: string): Promise<void> {
  if (!isNode) return;
  try {
    if (implName === "native") {
      patch = { enter() {}, leave() {} };
    } else if (implName === "ours" || implName === "alt") {
      const ext = oursUrl.endsWith(".ts") ? "ts" : "js";
      const adapter = (await import(new URL(`./adapters/node/mod.${ext}`, oursUrl).href)) as {
        patchGlobalWebStreams(): void;
        unpatchGlobalWebStreams(): void;
        fromNodeReadable: NonNullable<Patch["fromNodeReadable"]>;
        fromNodeWritable: NonNullable<Patch["fromNodeWritable"]>;
      };
      patch = {
        enter: adapter.patchGlobalWebStreams,
        leave: adapter.unpatchGlobalWebStreams,
        fromNodeReadable: adapter.fromNodeReadable,
        fromNodeWritable: adapter.fromNodeWritable,
      };
    } else if (implName === "fast") {
      const fast = (await import("experimental-fast-webstreams")) as {
        patchGlobalWebStreams(): void;
        unpatchGlobalWebStreams(): void;
      };
      patch = { enter: () => fast.patchGlobalWebStreams(), leave: () => fast.unpatchGlobalWebStreams() };
    }
  } catch (error) {
    loadError = error instanceof Error ? error.message : String(error);
  }
}

/** The patch currently on, shared by every copy of this module. */
const ACTIVE = Symbol.for("fusestreams.bench.activePatch");
interface Active {
  owner: string;
  leave(): void;
}

/** Puts this implementation's patch on (taking off another implementation's first). */
function activate(): void {
  const slot = globalThis as unknown as { [ACTIVE]?: Active };
  const current = slot[ACTIVE];
  if (current?.owner === implName) return;
  current?.leave();
  slot[ACTIVE] = undefined;
  patch!.enter();
  slot[ACTIVE] = { owner: implName, leave: patch!.leave };
}

// ---- shared fixtures (one per process, shared by the implementations through globalThis) ----

interface Fixtures {
  /** HTTP server on 127.0.0.1 answering GET /data/<count>x<size> with the scenario's chunks */
  server?: Promise<{ url: string; server: Server }>;
  files: Map<string, string>;
  dir?: string;
  agent: Agent;
}

const FIXTURES = Symbol.for("fusestreams.bench.nodeAdapterFixtures");
function fixtures(): Fixtures {
  const slot = globalThis as unknown as { [FIXTURES]?: Fixtures };
  if (slot[FIXTURES] === undefined) {
    slot[FIXTURES] = { files: new Map(), agent: new Agent({ keepAlive: true }) };
    process.once("exit", () => {
      const f = slot[FIXTURES]!;
      if (f.dir !== undefined) rmSync(f.dir, { recursive: true, force: true });
    });
  }
  return slot[FIXTURES]!;
}

/** Server-side handlers per path, registered by the scenarios. */
const ROUTES = Symbol.for("fusestreams.bench.nodeAdapterRoutes");
function routes(): Map<string, (req: IncomingMessage, res: ServerResponse) => void> {
  const slot = globalThis as unknown as { [ROUTES]?: Map<string, (req: IncomingMessage, res: ServerResponse) => void> };
  return (slot[ROUTES] ??= new Map());
}

function server(): Promise<{ url: string; server: Server }> {
  const f = fixtures();
  f.server ??= new Promise((resolve, reject) => {
    const s = createServer((req, res) => {
      const route = routes().get(req.url ?? "");
      if (route) route(req, res);
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    s.keepAliveTimeout = 60_000;
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      s.unref();
      resolve({ url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, server: s });
    });
  });
  return f.server;
}

/** A temporary file holding the scenario's bytes. */
function dataFile(data: Data): string {
  const f = fixtures();
  const key = `${data.count}x${data.size}`;
  let path = f.files.get(key);
  if (path === undefined) {
    f.dir ??= mkdtempSync(join(tmpdir(), "fusestreams-bench-"));
    path = join(f.dir, `${key}.txt`);
    writeFileSync(path, Buffer.concat(data.chunks));
    f.files.set(key, path);
  }
  return path;
}

/** GET `path` from the fixture server; every chunk of the body goes into `tally`. */
async function httpGet(path: string, tally: Tally): Promise<void> {
  const { url } = await server();
  await new Promise<void>((resolve, reject) => {
    get(`${url}${path}`, { agent: fixtures().agent }, (res) => {
      res.on("data", (chunk: Buffer) => tally.add(chunk));
      res.on("end", resolve);
      res.on("error", reject);
    }).on("error", reject);
  });
}

type TS = typeof TransformStream;
type RS = typeof ReadableStream;
type WS = typeof WritableStream;

/** The global classes as they are right now (patched or not). */
function globals(): { RS: RS; WS: WS; TS: TS } {
  return { RS: globalThis.ReadableStream, WS: globalThis.WritableStream, TS: globalThis.TransformStream };
}

function passOn(TS: TS): TransformStream<Uint8Array, Uint8Array> {
  return new TS<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
    },
  });
}

/**
 * The benchmark for scenario `id` for this module's implementation, or undefined when this
 * implementation (or runtime) takes no part. `NativeRS` is the runtime's own ReadableStream.
 */
export function build(id: string, data: Data, NativeRS: RS): AdapterBench | undefined {
  if (!isNode) return undefined;
  if (loadError !== undefined) throw new Error(`could not load the patch of ${implName}: ${loadError}`);
  if (patch === undefined) return undefined;
  const { chunks, count, expect } = data;

  switch (id) {
    case "node-response-forward":
      // A native body (as fetch or undici hands it out: a byte stream), forwarded through one transform.
      return {
        prepare: () => freshChunks(data),
        async run(fresh) {
          activate();
          const { WS, TS } = globals();
          let i = 0;
          const native = new NativeRS({
            type: "bytes",
            pull(controller) {
              controller.enqueue(fresh[i++]!);
              if (i === count) controller.close();
            },
          });
          const body = new Response(native as unknown as BodyInit).body!;
          const tally = new Tally();
          await body.pipeThrough(passOn(TS)).pipeTo(
            new WS<Uint8Array>({
              write(chunk) {
                tally.add(chunk);
              },
            }),
          );
          tally.check(expect, "response forwarding");
        },
      };

    case "node-fetch-3": {
      const path = `/fetch/${data.count}x${data.size}`;
      routes().set(path, (_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        for (let k = 0; k < count; k++) res.write(chunks[k]!);
        res.end();
      });
      return {
        async run() {
          activate();
          const { WS, TS } = globals();
          const { url } = await server();
          const response = await fetch(url + path);
          const tally = new Tally();
          await response
            .body!.pipeThrough(passOn(TS))
            .pipeThrough(passOn(TS))
            .pipeThrough(passOn(TS))
            .pipeTo(
              new WS<Uint8Array>({
                write(chunk) {
                  tally.add(chunk);
                },
              }),
            );
          tally.check(expect, "fetch -> 3 transforms");
        },
      };
    }

    case "node-response-text":
      return {
        async run() {
          activate();
          const { RS } = globals();
          let i = 0;
          const stream = new RS<Uint8Array>({
            pull(controller) {
              controller.enqueue(chunks[i++]!);
              if (i === count) controller.close();
            },
          });
          const text = await new Response(stream as unknown as BodyInit).text();
          const tally = new Tally();
          tally.addAscii(text);
          tally.check(expect, "new Response(stream).text()");
        },
      };

    case "node-file-http": {
      const file = dataFile(data);
      const path = `/file-${implName}/${data.count}x${data.size}`;
      const size = data.size;
      const ours = patch.fromNodeReadable !== undefined && patch.fromNodeWritable !== undefined;
      routes().set(path, (_req, res) => {
        const { TS } = globals();
        const source = createReadStream(file, { highWaterMark: size });
        const web: ReadableStream<Uint8Array> = ours
          ? patch!.fromNodeReadable!(source)
          : (Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>);
        const sink: WritableStream<Uint8Array> = ours
          ? patch!.fromNodeWritable!(res)
          : (Writable.toWeb(res) as unknown as WritableStream<Uint8Array>);
        web
          .pipeThrough(passOn(TS))
          .pipeThrough(passOn(TS))
          .pipeThrough(passOn(TS))
          .pipeTo(sink)
          .catch((error: unknown) => res.destroy(error as Error));
      });
      return {
        note: ours
          ? "fromNodeReadable(fs) -> 3 transforms -> pipeTo(fromNodeWritable(res))"
          : "Readable.toWeb(fs) -> 3 transforms -> pipeTo(Writable.toWeb(res))",
        async run() {
          activate();
          const tally = new Tally();
          await httpGet(path, tally);
          tally.check(expect, "file -> 3 transforms -> http response");
        },
      };
    }

    case "node-memory-chain": {
      // The node-file-http chain with the I/O taken out: what the adapter and the transforms cost per chunk.
      const ours = patch.fromNodeReadable !== undefined && patch.fromNodeWritable !== undefined;
      return {
        note: ours
          ? "fromNodeReadable(Readable) -> 3 transforms -> pipeTo(fromNodeWritable(Writable))"
          : "Readable.toWeb(Readable) -> 3 transforms -> pipeTo(Writable.toWeb(Writable))",
        prepare: () => freshChunks(data),
        async run(fresh) {
          activate();
          const { TS } = globals();
          const tally = new Tally();
          const source = memoryReadable(fresh);
          const destination = tallyWritable(tally);
          const web: ReadableStream<Uint8Array> = ours
            ? patch!.fromNodeReadable!(source)
            : (Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>);
          const sink: WritableStream<Uint8Array> = ours
            ? patch!.fromNodeWritable!(destination)
            : (Writable.toWeb(destination) as unknown as WritableStream<Uint8Array>);
          await web.pipeThrough(passOn(TS)).pipeThrough(passOn(TS)).pipeThrough(passOn(TS)).pipeTo(sink);
          tally.check(expect, "in-memory Readable -> 3 transforms -> Writable");
        },
      };
    }

    case "node-memory-pipeline":
      // A chain that ends at a Node.js stream through stream.pipeline(), written with node:stream's own
      // converters (with the patch on, fusestreams' toWeb/fromWeb for ours). experimental-fast-webstreams'
      // patch leaves Readable.fromWeb() rejecting its streams (a TypeError), so it takes no part.
      if (implName === "fast") return undefined;
      return {
        prepare: () => freshChunks(data),
        async run(fresh) {
          activate();
          const { TS } = globals();
          const tally = new Tally();
          const source = memoryReadable(fresh);
          const destination = tallyWritable(tally);
          const web = Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>;
          const out = web.pipeThrough(passOn(TS)).pipeThrough(passOn(TS)).pipeThrough(passOn(TS));
          await pipeline(Readable.fromWeb(out as unknown as Parameters<typeof Readable.fromWeb>[0]), destination);
          tally.check(expect, "Readable.fromWeb(chain) -> pipeline()");
        },
      };

    case "node-from-web":
    case "node-from-web-push": {
      // A web stream handed to node:stream (ours: the patched Readable.fromWeb() is toNodeReadable(), which
      // reads a stream that is not a transform's readable side in batches, a whole batch pushed per _read()).
      if (implName === "fast") return undefined; // its patch leaves Readable.fromWeb() rejecting its streams
      const push = id === "node-from-web-push";
      return {
        async run() {
          activate();
          const { RS } = globals();
          const tally = new Tally();
          let i = 0;
          let stream: ReadableStream<Uint8Array>;
          if (push) {
            let controller!: ReadableStreamDefaultController<Uint8Array>;
            stream = new RS<Uint8Array>({
              start(c) {
                controller = c;
              },
            }, { highWaterMark: 16 });
            pushInBursts(count, 64, (k) => controller.enqueue(chunks[k]!), () => controller.close());
          } else {
            stream = new RS<Uint8Array>({
              pull(controller) {
                controller.enqueue(chunks[i++]!);
                if (i === count) controller.close();
              },
            }, { highWaterMark: 16 });
          }
          await pipeline(
            Readable.fromWeb(stream as unknown as Parameters<typeof Readable.fromWeb>[0]),
            tallyWritable(tally),
          );
          tally.check(expect, "Readable.fromWeb(stream) -> pipeline()");
        },
      };
    }

    case "node-react":
      return reactBench();

    // ---- floors: the same I/O without web streams (or without transforms and pipes), native only ----

    case "node-floor-response-forward":
      if (implName !== "native") return undefined;
      return {
        note: "the native byte source of node-response-forward, reader.read() loop, no Response, transform or sink",
        prepare: () => freshChunks(data),
        async run(fresh) {
          activate();
          let i = 0;
          const native = new NativeRS({
            type: "bytes",
            pull(controller) {
              controller.enqueue(fresh[i++]!);
              if (i === count) controller.close();
            },
          });
          const reader = native.getReader();
          const tally = new Tally();
          for (;;) {
            const result = await reader.read();
            if (result.done) break;
            tally.add(result.value);
          }
          tally.check(expect, "floor: native reader loop");
        },
      };

    case "node-floor-fetch": {
      if (implName !== "native") return undefined;
      const path = `/floor-fetch/${data.count}x${data.size}`;
      routes().set(path, (_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        for (let k = 0; k < count; k++) res.write(chunks[k]!);
        res.end();
      });
      return {
        note:
          "node-fetch-3's request and response (same server code), the native body read by a reader loop: no transform, no pipe",
        async run() {
          activate();
          const { url } = await server();
          const response = await fetch(url + path);
          const reader = response.body!.getReader();
          const tally = new Tally();
          for (;;) {
            const result = await reader.read();
            if (result.done) break;
            tally.add(result.value);
          }
          tally.check(expect, "floor: fetch -> reader loop");
        },
      };
    }

    case "node-floor-file-http": {
      if (implName !== "native") return undefined;
      const file = dataFile(data);
      const path = `/floor-file/${data.count}x${data.size}`;
      const size = data.size;
      routes().set(path, (_req, res) => {
        const source = createReadStream(file, { highWaterMark: size });
        const resume = (): void => {
          source.resume();
        };
        source.on("data", (chunk) => {
          queueMicrotask(() => {
            if (!res.write(chunk)) {
              source.pause();
              res.once("drain", resume);
            }
          });
        });
        source.on("end", () => queueMicrotask(() => res.end()));
        source.on("error", (error) => res.destroy(error));
      });
      return {
        note:
          "fs 'data' -> res.write() in a microtask (pause until 'drain'): the fused chain's I/O without web streams",
        async run() {
          activate();
          const tally = new Tally();
          await httpGet(path, tally);
          tally.check(expect, "floor: fs -> http response");
        },
      };
    }
  }
  return undefined;
}

// ---- React ----

type ReactModule = typeof import("react");
type ServerModule = typeof import("react-dom/server");
const REACT = Symbol.for("fusestreams.bench.react");

interface ReactFixture {
  React: ReactModule;
  server: ServerModule;
  element: () => ReturnType<ReactModule["createElement"]>;
  expect: Expect;
}

/** react and react-dom/server (devDependencies), and the reference render of the page. */
async function reactFixture(): Promise<ReactFixture> {
  const slot = globalThis as unknown as { [REACT]?: Promise<ReactFixture> };
  slot[REACT] ??= (async () => {
    const [React, server] = await Promise.all([import("react"), import("react-dom/server")]);
    const h = React.createElement;
    const Row = ({ i }: { i: number }) =>
      h(
        "tr",
        { className: i % 2 === 0 ? "even" : "odd" },
        h("td", null, i),
        h("td", { style: { paddingLeft: i % 7 } }, `row ${i} <name> & "text"`),
        h("td", null, h("a", { href: `/item/${i}` }, "open")),
      );
    const element = () =>
      h(
        "main",
        null,
        h("h1", null, "Report"),
        h("table", null, h("tbody", null, Array.from({ length: 1500 }, (_, i) => h(Row, { key: i, i })))),
      );
    const html = Buffer.from(server.renderToString(element()));
    return { React, server, element, expect: expectOf([html]) };
  })();
  return slot[REACT];
}

function reactBench(): AdapterBench {
  let fixture: ReactFixture | undefined;
  return {
    async run() {
      fixture ??= await reactFixture();
      activate();
      const stream = (await fixture.server.renderToReadableStream(fixture.element())) as unknown as ReadableStream<
        Uint8Array
      >;
      const reader = stream.getReader();
      const tally = new Tally();
      for (;;) {
        const result = await reader.read();
        if (result.done) break;
        tally.add(result.value);
      }
      tally.check(fixture.expect, "React renderToReadableStream");
    },
  };
}
