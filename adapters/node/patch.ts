/**
 * The Node.js steps of the global patch (see `NODE_PATCH`): undici loaded first, the symbols `node:stream`
 * reads and calls on web streams (kit: `node-stream-symbols.ts`), `clone()`, `node:stream`'s `fromWeb`/`toWeb`,
 * transfer (kit: `transfer.ts`), Node's error codes on our errors (`error-codes.ts`), `util.inspect()` as for
 * Node's own streams (`inspect.ts`), `text()` and friends of bodies of ours (`body-consumers.ts`), and
 * `node:stream/web`'s exports (`stream-web.ts`).
 * @module
 */
import process from "node:process";
import { Duplex, Readable, Writable } from "node:stream";
import * as api from "../../mod.ts";
import type { RuntimeAdapterConfig } from "../kit/runtime-adapter.ts";
import { isBodyShell } from "../kit/body-shells.ts";
import { ReadableStreamTeeInPlace } from "../kit/body-tee.ts";
import { isOurReadable, isOurWritable } from "../kit/natives.ts";
import { patchNodeStreamSymbols } from "../kit/node-stream-symbols.ts";
import { patchTransfer } from "../kit/transfer.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import { patchNodeBodyConsumers } from "./body-consumers.ts";
import { fromNodeDuplex, toNodeDuplex } from "./duplex.ts";
import { fromNodeReadable } from "./from-node-readable.ts";
import { fromNodeWritable } from "./from-node-writable.ts";
import { toNodeReadable } from "./to-node-readable.ts";
import { toNodeWritable } from "./to-node-writable.ts";
import { patchStreamWebExports } from "./stream-web.ts";
import { patchErrorCodes } from "./error-codes.ts";
import { patchInspect } from "./inspect.ts";

/**
 * The Node.js adapter's configuration of the kit's global patch: its own steps around the shared ones.
 * undici takes our streams as bodies itself (its brand check follows the prototype chain), so the shared
 * `body-init` step is off.
 */
export const NODE_PATCH: Pick<RuntimeAdapterConfig, "before" | "after" | "shared"> = {
  before: [
    { name: "load undici", run: loadUndici },
    { name: "node:stream symbols", run: patchNodeStreamSymbols },
  ],
  after: [
    { name: "Response/Request clone", run: patchClone },
    { name: "node:stream fromWeb/toWeb", run: patchNodeStreamStatics },
    { name: "transfer", run: patchTransfer },
    { name: "error codes", run: patchErrorCodes },
    { name: "node inspect", run: patchInspect },
    { name: "node-consumers", run: patchNodeBodyConsumers },
    // Last: it mirrors every global replaced before it.
    { name: "node:stream/web exports", run: patchStreamWebExports },
  ],
  shared: { bodyInit: false },
};

/** Whether this is Node.js itself (Deno and Bun also define `process.versions.node`). */
export function onNode(): boolean {
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  return g.Deno === undefined && g.Bun === undefined && process.release?.name === "node";
}

/**
 * Node.js loads undici (fetch, Response, ...) lazily: make it load now, while the globals are the native
 * classes, so that its type checks capture them. (Loading undici also does what its first use would do
 * anyway: it adds its global dispatcher symbol, and on Node.js 20 it reads lazy globals such as
 * `TextEncoder`, which then stay plain values.)
 */
function loadUndici(tx: PatchTransaction): void {
  const g = globalThis as { Response?: unknown; fetch?: unknown };
  // Recorded before they are read: Node.js 20 defines them as accessors that replace themselves.
  tx.record(g, "Response");
  tx.record(g, "fetch");
  void g.Response;
  void g.fetch;
}

/** The second branch of a body's tee with its chunks structured-cloned (fetch tees bodies so). */
function clonedBranch(stream: api.ReadableStream): api.ReadableStream {
  const [second, bytes] = ReadableStreamTeeInPlace(stream);
  if (bytes) return second;
  return second.pipeThrough(
    new api.TransformStream({
      transform(chunk, controller) {
        controller.enqueue(structuredClone(chunk));
      },
    }),
  );
}

/**
 * Whether `stream` is one of our streams that a clone() may tee (not locked, not read from). A body shell
 * is not: it stands for a native body, which undici's clone() tees itself.
 */
function clonableOurs(stream: unknown): stream is api.ReadableStream {
  return isOurReadable(stream) && !isBodyShell(stream) && !stream.locked &&
    api.readableStreamState(stream)?.disturbed === false;
}

/**
 * undici's `Response.prototype.clone()` / `Request.prototype.clone()` cannot tee our streams: on Node.js
 * >= 26 they tee with node:stream/web's `ReadableStreamTee`, captured when undici loaded, which throws
 * for any stream but Node's own; before, with `tee()`, without cloning the second branch's chunks as
 * fetch asks. While patched, undici makes its bodies with the global class (ours): `new Response("abc")`,
 * a `fetch()` response. For such a body (ours, unused), clone() tees it here: the body stream goes on as
 * the first branch (ReadableStreamTeeInPlace: undici keeps the same stream object), and the clone is made
 * from the second with the same status, status text, headers, type, URL and redirect flag (a Request:
 * `new Request(this, { body })`, which copies every other member). A used or locked body, or a native
 * one (seen through a body shell), goes to undici's clone(), which throws or tees it as before.
 */
function patchClone(tx: PatchTransaction): void {
  const g = globalThis as unknown as { Response?: typeof Response; Request?: typeof Request };
  const NativeResponse = g.Response;
  const NativeRequest = g.Request;
  if (NativeResponse !== undefined) {
    const proto = NativeResponse.prototype as Response & { clone(this: Response): Response };
    const clone = proto.clone;
    tx.defineValue(proto, "clone", function clone_(this: Response): Response {
      const body: unknown = this.body;
      if (!clonableOurs(body)) return clone.call(this);
      const copy = new NativeResponse(clonedBranch(body) as unknown as ReadableStream<Uint8Array>, {
        status: this.status,
        statusText: this.statusText,
        headers: this.headers,
      });
      for (const key of ["type", "url", "redirected"] as const) {
        const value = this[key];
        if (copy[key] !== value) {
          Object.defineProperty(copy, key, { value, enumerable: false, configurable: true, writable: false });
        }
      }
      return copy;
    });
  }
  if (NativeRequest !== undefined) {
    const proto = NativeRequest.prototype as Request & { clone(this: Request): Request };
    const clone = proto.clone;
    tx.defineValue(proto, "clone", function clone_(this: Request): Request {
      const body: unknown = this.body;
      if (!clonableOurs(body)) return clone.call(this);
      const init = { body: clonedBranch(body) as unknown as ReadableStream<Uint8Array>, duplex: "half" } as RequestInit;
      return new NativeRequest(this, init);
    });
  }
}

function isPair(value: unknown): value is { readable: unknown; writable: unknown } {
  return typeof value === "object" && value !== null;
}

type FromWeb = (stream: unknown, options?: unknown) => unknown;
type ToWeb = (stream: unknown, options?: unknown) => unknown;

/** Options of a `toWeb()` call that fusestreams handles the same way: none, or a plain high-water mark. */
function simpleToWebOptions(options: unknown): { highWaterMark?: number } | undefined {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) return undefined;
  const keys = Object.keys(options);
  if (keys.length === 0) return {};
  const strategy = (options as { strategy?: unknown }).strategy;
  if (keys.length !== 1 || typeof strategy !== "object" || strategy === null) return undefined;
  const { highWaterMark, size } = strategy as { highWaterMark?: unknown; size?: unknown };
  if (size !== undefined || (highWaterMark !== undefined && typeof highWaterMark !== "number")) return undefined;
  return highWaterMark === undefined ? {} : { highWaterMark };
}

/**
 * `Readable.fromWeb()`, `Writable.fromWeb()` and `Duplex.fromWeb()` of node:stream accept only native
 * streams: while patched (when `response.body` and friends are fusestreams streams) they route ours to
 * the adapter's converters. `toWeb()` returns fusestreams streams when called without options (or with
 * just `strategy.highWaterMark`), and native ones otherwise.
 */
function patchNodeStreamStatics(tx: PatchTransaction): void {
  const statics = (C: object) => C as { fromWeb: FromWeb; toWeb: ToWeb };
  const R = statics(Readable);
  const W = statics(Writable);
  const D = statics(Duplex);
  const readableFromWeb = R.fromWeb;
  const readableToWeb = R.toWeb;
  const writableFromWeb = W.fromWeb;
  const writableToWeb = W.toWeb;
  const duplexFromWeb = D.fromWeb;
  const duplexToWeb = D.toWeb;
  if (typeof readableFromWeb === "function") {
    tx.defineValue(Readable, "fromWeb", function fromWeb(stream: unknown, options?: unknown) {
      if (!isOurReadable(stream)) return readableFromWeb.call(Readable, stream, options);
      return toNodeReadable(stream, options as Parameters<typeof toNodeReadable>[1]);
    });
  }
  if (typeof readableToWeb === "function") {
    tx.defineValue(Readable, "toWeb", function toWeb(readable: unknown, options?: unknown) {
      const simple = simpleToWebOptions(options);
      if (simple === undefined || !(readable instanceof Readable)) {
        return readableToWeb.call(Readable, readable, options);
      }
      return fromNodeReadable(readable, simple);
    });
  }
  if (typeof writableFromWeb === "function") {
    tx.defineValue(Writable, "fromWeb", function fromWeb(stream: unknown, options?: unknown) {
      if (!isOurWritable(stream)) return writableFromWeb.call(Writable, stream, options);
      return toNodeWritable(stream, options as Parameters<typeof toNodeWritable>[1]);
    });
  }
  if (typeof writableToWeb === "function") {
    tx.defineValue(Writable, "toWeb", function toWeb(writable: unknown, options?: unknown) {
      const simple = simpleToWebOptions(options);
      if (simple === undefined || !(writable instanceof Writable)) {
        return writableToWeb.call(Writable, writable, options);
      }
      return fromNodeWritable(writable, simple);
    });
  }
  if (typeof duplexFromWeb === "function") {
    tx.defineValue(Duplex, "fromWeb", function fromWeb(pair: unknown, options?: unknown) {
      if (!isPair(pair) || !isOurReadable(pair.readable) || !isOurWritable(pair.writable)) {
        return duplexFromWeb.call(Duplex, pair, options);
      }
      return toNodeDuplex(
        { readable: pair.readable, writable: pair.writable },
        options as Parameters<typeof toNodeDuplex>[1],
      );
    });
  }
  if (typeof duplexToWeb === "function") {
    tx.defineValue(Duplex, "toWeb", function toWeb(duplex: unknown, options?: unknown) {
      if (options !== undefined || !(duplex instanceof Duplex)) return duplexToWeb.call(Duplex, duplex, options);
      return fromNodeDuplex(duplex);
    });
  }
}
