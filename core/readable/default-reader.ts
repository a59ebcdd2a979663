/**
 * ReadableStreamDefaultReader (Streams §4.3).
 * @module
 */
import { foreignReaders } from "./source-types.ts";
import { defineInterface } from "../shared/interface.ts";
import { PromiseReject, PromiseResolve } from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import { readableStreamInternalOrUndefined, toReadableStreamInternal } from "./brand.ts";
import { PromiseReadRequest, type ReadResult } from "./read-requests.ts";
import {
  AcquireReadableStreamDefaultReader,
  ReadableStreamDefaultReaderRead,
  ReadableStreamReaderGenericCancel,
  ReadableStreamReaderRelease,
} from "./reader-ops.ts";
import { CLOSED, NO_CHUNK, READABLE, type ReaderInternal } from "./stream-internal.ts";
import type { ReadableStream } from "../api/readable.ts";

let getReader: (x: unknown) => ReaderInternal | undefined;

function illegal(): TypeError {
  return typeError("Illegal invocation: not a ReadableStreamDefaultReader");
}

/** A reader that reads chunks from a ReadableStream it has locked (§4.3). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class ReadableStreamDefaultReader<R = any> {
  #r!: ReaderInternal;

  /** Locks `stream` and creates a reader for it. Throws a TypeError if the stream is locked. */
  constructor(stream: ReadableStream<R>) {
    const s = readableStreamInternalOrUndefined(stream);
    if (s === undefined) {
      // A runtime's own stream, while its adapter's patch is on: the runtime's reader.
      const made = foreignReaders.make?.(stream as object, false);
      if (made !== undefined) return made as this;
    }
    this.#r = AcquireReadableStreamDefaultReader(s ?? toReadableStreamInternal(stream, "Argument 1"));
  }

  static {
    getReader = (
      x,
    ) => (typeof x === "object" && x !== null && #r in x ? (x as ReadableStreamDefaultReader).#r : undefined);
  }

  /** Fulfills when the stream closes, rejects when it errors or the lock is released. */
  get closed(): Promise<undefined> {
    const r = getReader(this);
    if (r === undefined) return PromiseReject(illegal());
    return r.closed!.promise;
  }

  /** Cancels the stream, signalling that the consumer has lost interest. */
  cancel(reason: unknown = undefined): Promise<undefined> {
    const r = getReader(this);
    if (r === undefined) return PromiseReject(illegal());
    if (r.stream === undefined) return PromiseReject(typeError("Cannot cancel a stream using a released reader"));
    return ReadableStreamReaderGenericCancel(r, reason);
  }

  /** Reads the next chunk. */
  read(): Promise<ReadResult<R>> {
    const r = getReader(this);
    if (r === undefined) return PromiseReject(illegal());
    return readWithPromise(r) as Promise<ReadResult<R>>;
  }

  /** Releases the lock; pending reads reject with a TypeError. */
  releaseLock(): void {
    const r = getReader(this);
    if (r === undefined) throw illegal();
    if (r.stream === undefined) return;
    ReadableStreamReaderRelease(r);
  }
}
defineInterface(ReadableStreamDefaultReader, "ReadableStreamDefaultReader");

/**
 * The steps of `ReadableStreamDefaultReader.prototype.read()` after the brand check (Streams §4.3.3): a promise of
 * the next read result, rejected with a TypeError for a released reader.
 */
export function readWithPromise(r: ReaderInternal): Promise<ReadResult<unknown>> {
  const stream = r.stream;
  if (stream === undefined) return PromiseReject(typeError("Cannot read from a released reader"));
  if (stream.state === READABLE) {
    // FP-READ: a chunk already queued resolves the read at once, without a read-request object.
    stream.disturbed = true;
    const chunk = stream.readSync();
    if (chunk !== NO_CHUNK) return PromiseResolve({ value: chunk, done: false });
    // ReadableStreamDefaultReaderRead on a readable stream whose queue is empty. FP-OWN-REQUEST: the reader's
    // own request when no read waits on it (request objects are internal; the promise is new).
    let request = r.ownRequest;
    if (request === undefined) request = r.ownRequest = new PromiseReadRequest();
    else if (request.armed) request = new PromiseReadRequest();
    const promise = request.arm();
    stream.pullStepsEmpty(request);
    return promise as Promise<ReadResult<unknown>>;
  } else if (stream.state === CLOSED) {
    stream.disturbed = true;
    return PromiseResolve({ value: undefined, done: true });
  }
  const request = new PromiseReadRequest();
  const promise = request.arm();
  ReadableStreamDefaultReaderRead(r, request);
  return promise as Promise<ReadResult<unknown>>;
}

/** The internal state of a fusestreams ReadableStreamDefaultReader, or undefined if `x` is not one. */
export function defaultReaderInternalOrUndefined(x: unknown): ReaderInternal | undefined {
  return getReader(x);
}
