/**
 * The registered symbols through which `node:stream` (Node.js's, and Deno's node compatibility layer) asks a
 * web stream how it ended and errors it: `finished()` / `pipeline()` wait on
 * `stream[Symbol.for("nodejs.webstream.isClosedPromise")].promise`, and `addAbortSignal()` errors the
 * stream with `stream[Symbol.for("nodejs.webstream.controllerErrorFunction")](error)`. Native streams carry
 * both as own properties; while patched, fusestreams' prototypes answer them from the core
 * (`whenReadableStreamSettles`, `whenWritableStreamSettles`, `errorStream`).
 * @module
 */
import * as api from "../../core/internal.ts";
import { noop } from "./natives.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** `Symbol.for("nodejs.webstream.isClosedPromise")`: a deferred settled when the stream closes or errors. */
export const kIsClosedPromise: unique symbol = Symbol.for("nodejs.webstream.isClosedPromise") as never;
/** `Symbol.for("nodejs.webstream.controllerErrorFunction")`: errors the stream as its controller would. */
export const kControllerErrorFunction: unique symbol = Symbol.for("nodejs.webstream.controllerErrorFunction") as never;

/** The shape node:stream reads (`.promise`), with the settle functions a native stream's record has too. */
export interface ClosedRecord {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

const getOwn = Object.getOwnPropertyDescriptor;

function closedRecord(): ClosedRecord {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting on it: an errored stream must not make an unhandled rejection, as natively.
  promise.then(undefined, noop);
  return { promise, resolve, reject };
}

/**
 * Step: fusestreams' ReadableStream and WritableStream prototypes answer `kIsClosedPromise` (one record per
 * stream, made when first asked, settled however the stream ends), and ReadableStream, WritableStream and
 * TransformStream prototypes answer `kControllerErrorFunction` (a function erroring that stream). A
 * prototype that already has one of them (the core's own) keeps it.
 */
export function patchNodeStreamProtocol(tx: PatchTransaction): void {
  const records = new WeakMap<object, ClosedRecord>();
  const closedPromise = (settles: typeof api.whenReadableStreamSettles) =>
    function (this: object): ClosedRecord | undefined {
      let record = records.get(this);
      if (record === undefined) {
        const r = closedRecord();
        if (!settles(this, r.resolve, r.reject)) return undefined;
        records.set(this, record = r);
      }
      return record;
    };
  const errorFunction = function (this: object): (e: unknown) => void {
    return (e: unknown) => void api.errorStream(this, e);
  };
  const getters: [object, symbol, (this: object) => unknown][] = [
    [api.ReadableStream.prototype, kIsClosedPromise, closedPromise(api.whenReadableStreamSettles)],
    [api.WritableStream.prototype, kIsClosedPromise, closedPromise(api.whenWritableStreamSettles)],
    [api.ReadableStream.prototype, kControllerErrorFunction, errorFunction],
    [api.WritableStream.prototype, kControllerErrorFunction, errorFunction],
    [api.TransformStream.prototype, kControllerErrorFunction, errorFunction],
  ];
  for (const [proto, key, get] of getters) {
    if (getOwn(proto, key) !== undefined) continue;
    tx.defineAccessor(proto, key, get as (this: never) => unknown);
  }
}
