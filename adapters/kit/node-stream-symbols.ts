/**
 * The registered symbols through which node:stream's utilities ask a web stream for its state and act on it:
 * `isDisturbed()`, `isErrored()`, `isReadable()` / `isWritable()`, `finished()` (and `pipeline()`, `compose()`,
 * `Duplex.from()`, which wait with it), and `addAbortSignal()`, which errors the stream's controller. Node.js
 * reads them from its own streams; a runtime whose node compatibility layer ports Node's stream code reads
 * the same ones. Answered here from the core's state views, so they hold however the stream is consumed,
 * without reading any runtime internals.
 * @module
 */
import {
  errorReadableStream,
  errorWritableStream,
  ReadableStream,
  readableStreamState,
  whenReadableStreamSettles,
  whenWritableStreamSettles,
  WritableStream,
  writableStreamState,
} from "../../core/internal.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** `isDisturbed()`: whether anything was read from the stream or it was cancelled. */
const kIsDisturbed = Symbol.for("nodejs.stream.disturbed");
/** `isErrored()`. */
const kIsErrored = Symbol.for("nodejs.stream.errored");
/** `isReadable()`: a ReadableStream in the "readable" state. */
const kIsReadable = Symbol.for("nodejs.stream.readable");
/** `isWritable()`: a WritableStream in the "writable" state. */
const kIsWritable = Symbol.for("nodejs.stream.writable");
/**
 * `finished()` on a web stream waits on `stream[kIsClosedPromise].promise`: a record with a promise fulfilled
 * when the stream closes and rejected with its error when it errors (a WritableStream: where a writer's
 * `closed` promise would settle).
 */
const kIsClosedPromise = Symbol.for("nodejs.webstream.isClosedPromise");
/** `addAbortSignal(signal, stream)` calls `stream[kControllerErrorFunction](abortError)` when the signal aborts. */
const kControllerErrorFunction = Symbol.for("nodejs.webstream.controllerErrorFunction");

const getOwn = Object.getOwnPropertyDescriptor;

/** What `stream[kIsClosedPromise]` returns: Node's own streams hand out a promise with its settle functions. */
interface ClosedRecord {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
}

function noop(): void {}

/** One record per stream, made when first asked for (most streams are never handed to `finished()`). */
const closedRecords = new WeakMap<object, ClosedRecord>();

function closedRecordOf(
  stream: object,
  when: (x: unknown, onClosed: () => void, onErrored: (e: unknown) => void) => boolean,
): ClosedRecord | undefined {
  let record = closedRecords.get(stream);
  if (record !== undefined) return record;
  let resolve!: () => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // As Node's own: nobody need handle the rejection of a stream that errors.
  promise.then(undefined, noop);
  record = { promise, resolve, reject };
  if (!when(stream, resolve, reject)) return undefined;
  closedRecords.set(stream, record);
  return record;
}

/**
 * Patch step `node:stream symbols`: defines the symbols above on our ReadableStream and WritableStream
 * prototypes (a TransformStream's sides are those), where the core does not define them itself. Run it before
 * the prototypes are linked to the native ones (step `classes`), whose own symbol-keyed members it would
 * otherwise meet shadowed.
 *
 * As Node's own streams do, `addAbortSignal()` errors a default ReadableStream's controller and a
 * WritableStream's, and leaves a readable byte stream as it is.
 */
export function patchNodeStreamSymbols(tx: PatchTransaction): void {
  const rsProto = ReadableStream.prototype as object;
  const wsProto = WritableStream.prototype as object;
  const getters: [object, symbol, (this: object) => unknown][] = [
    [rsProto, kIsDisturbed, function (this: object) {
      return readableStreamState(this)?.disturbed ?? false;
    }],
    [rsProto, kIsErrored, function (this: object) {
      return readableStreamState(this)?.state === "errored";
    }],
    [rsProto, kIsReadable, function (this: object) {
      return readableStreamState(this)?.state === "readable";
    }],
    [rsProto, kIsClosedPromise, function (this: object) {
      return closedRecordOf(this, whenReadableStreamSettles);
    }],
    [wsProto, kIsErrored, function (this: object) {
      return writableStreamState(this)?.state === "errored";
    }],
    [wsProto, kIsWritable, function (this: object) {
      return writableStreamState(this)?.state === "writable";
    }],
    [wsProto, kIsClosedPromise, function (this: object) {
      return closedRecordOf(this, whenWritableStreamSettles);
    }],
  ];
  for (const [proto, key, get] of getters) {
    if (getOwn(proto, key) !== undefined) continue;
    tx.defineAccessor(proto, key, get as (this: never) => unknown);
  }
  const methods: [object, symbol, (this: unknown, error: unknown) => void][] = [
    [rsProto, kControllerErrorFunction, function (this: unknown, error: unknown) {
      errorReadableStream(this, error, { bytes: false });
    }],
    [wsProto, kControllerErrorFunction, function (this: unknown, error: unknown) {
      errorWritableStream(this, error);
    }],
  ];
  for (const [proto, key, fn] of methods) {
    if (getOwn(proto, key) !== undefined) continue;
    tx.defineValue(proto, key, fn, false);
  }
}
