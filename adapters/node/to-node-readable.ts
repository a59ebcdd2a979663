/// <reference types="node" preserve="true" />
/**
 * `toNodeReadable`: a fusestreams ReadableStream as a `node:stream` Readable.
 * @module
 */
import { Readable } from "node:stream";
import {
  acquireBatchReader,
  type Batch,
  BATCH_DONE,
  type BatchAnswer,
  isBatchPromise,
  isTransformReadable,
  type ReadableStreamLike,
} from "../kit/batch-reader.ts";
import {
  type ReadableStream,
  type ReadableStreamDefaultReader,
  type ReadableStreamReadResult,
  WritableStream,
  type WritableStreamDefaultController,
} from "../../mod.ts";
import { isOurReadable } from "../kit/natives.ts";

/** Options of {@link toNodeReadable} (passed on to the `Readable` constructor). */
export interface ToNodeReadableOptions {
  /** Buffer limit of the Readable: bytes, or chunks in object mode. Node.js's default when omitted. */
  highWaterMark?: number;
  /** Emit chunks as they are instead of as Buffers (required for chunks that are not bytes or strings). */
  objectMode?: boolean;
  /** Decode the bytes to strings with this encoding (like `readable.setEncoding()`). */
  encoding?: BufferEncoding;
  /** Destroys the Readable (and so cancels the web stream) when the signal aborts. */
  signal?: AbortSignal;
}

/**
 * The reading half shared by {@link toNodeReadable} and `toNodeDuplex`: pulls from a reader into a
 * Node.js Readable (or Duplex) only when Node.js asks for data.
 * @internal
 */
export interface ReadSide {
  /** The Readable's `read()` implementation. */
  read(): void;
  /** Cancels the web stream unless it already ended; calls back when the cancel settled. */
  destroy(err: Error | null, callback: (err?: Error | null) => void): void;
}

/**
 * Builds the reading half of a Node.js stream over `stream`: locks the stream at once, and pushes into
 * `node()` (resolved lazily, since the Node.js stream is constructed with these methods) only once
 * Node.js asks for data. A fusestreams stream is piped (see {@link pipedReadSide}); any other stream
 * is read with one `read()` at a time.
 * @internal
 */
export function createReadSide<R>(stream: ReadableStream<R>, node: () => Readable): ReadSide {
  if (!isOurReadable(stream)) return readerReadSide(stream, node);
  // The end of a chain of transforms is piped (fused end to end); any other stream is read in batches.
  return isTransformReadable(stream) ? pipedReadSide(stream, node) : batchedReadSide(stream, node);
}

/** `destroy()`'s end: cancels the stream with `err` and calls back with `err`, or with the cancel's failure. */
function cancelThenCall(
  reader: { cancel(reason?: unknown): Promise<unknown> },
  err: Error | null,
  callback: (err?: Error | null) => void,
): void {
  reader.cancel(err ?? undefined).then(
    () => callback(err),
    (cancelError: unknown) => callback(err ?? (cancelError as Error)),
  );
}

/** A chunk's length as a byte-mode Readable counts it (a string's length is close enough for a budget). */
function chunkLength(chunk: unknown): number {
  if (typeof chunk === "string") return chunk.length;
  const length = (chunk as { byteLength?: unknown } | null)?.byteLength;
  return typeof length === "number" ? length : 1;
}

/**
 * The reading half over a fusestreams stream, read in batches (core/consumers/read-batch.ts): each wake of
 * Node.js (`_read()`) pushes every chunk available, a whole batch, synchronously when chunks are queued; a
 * batch is pushed whole even once `push()` returns `false` (it is already read), and the next one waits for
 * the next `_read()`. A batch that waits collects a synchronous pull() chain's chunks only up to the Readable's
 * high-water mark, so the Readable holds at most its high-water mark and one chunk, the stream its own.
 */
function batchedReadSide<R>(stream: ReadableStream<R>, node: () => Readable): ReadSide {
  const reader = acquireBatchReader(stream as unknown as ReadableStreamLike<R>, "toNodeReadable()");
  // Set when the stream closed or errored, or the Node.js stream was destroyed.
  let ended = false;
  let reading = false;
  // What a waiting batch holds, in the Readable's units (bytes, or chunks in object mode): a batch read waits
  // for more chunks of a synchronous pull() chain only while they fit under the Readable's high-water mark.
  let held = 0;
  const answer: BatchAnswer<Batch<R>> = {
    chunks(batch) {
      held = 0;
      return batch as R[];
    },
    end: () => BATCH_DONE,
    error() {},
    hold(chunk) {
      const readable = node();
      held += readable.readableObjectMode ? 1 : chunkLength(chunk);
      return readable.readableLength + held < readable.readableHighWaterMark;
    },
  };
  /** Pushes `batch`; whether Node.js wants more. */
  const push = (batch: R[]): boolean => {
    const readable = node();
    let more = true;
    for (let i = 0; i < batch.length; i++) more = readable.push(batch[i]);
    return more && !readable.destroyed;
  };
  const end = (): void => {
    ended = true;
    node().push(null);
  };
  const onBatch = (next: Batch<R>): void => {
    reading = false;
    if (ended) return;
    if (next === BATCH_DONE) end();
    else if (push(next)) pump();
  };
  const onError = (err: unknown): void => {
    reading = false;
    if (ended) return;
    ended = true;
    node().destroy(err as Error);
  };
  const pump = (): void => {
    while (!reading && !ended) {
      const next = reader.readAs(answer);
      if (isBatchPromise(next)) {
        reading = true;
        next.then(onBatch, onError);
        return;
      }
      if (next === BATCH_DONE) {
        end();
        return;
      }
      if (!push(next)) return;
    }
  };
  return {
    read: pump,
    destroy(err, callback) {
      if (ended) {
        callback(err);
        return;
      }
      ended = true;
      cancelThenCall(reader, err, callback);
    },
  };
}

/**
 * The reading half over a fusestreams stream: at the first `_read()` the stream is piped (`pipeTo()`)
 * into a sink whose `write()` pushes the chunk and returns without a promise while `push()` returns
 * `true`, so the pipe hands chunks to the Node.js stream by direct calls (a fused link, see
 * `inspectPipeChain()`); when `push()` returns `false`, the write waits for the next `_read()`.
 * The stream is locked to a reader until then, so nothing else can take it.
 *
 * Errors: an error of the stream rejects the pipe, which destroys the Node.js stream with the same
 * error; `destroy(err)` errors the sink with `err`, so the pipe cancels the stream with `err` (or
 * `undefined`), and a cancel that fails is reported as the destroy error.
 */
function pipedReadSide<R>(stream: ReadableStream<R>, node: () => Readable): ReadSide {
  // Holds the lock until the first _read(), which hands it to the pipe.
  let reader: ReadableStreamDefaultReader<R> | undefined = stream.getReader();
  let pipe: Promise<void> | undefined;
  // Set when the stream closed or errored, or the Node.js stream was destroyed.
  let ended = false;
  // Completes the sink's write that waits for the next _read().
  let wake: (() => void) | undefined;
  let sinkController!: WritableStreamDefaultController;

  const resume = (): void => {
    const w = wake;
    if (w === undefined) return;
    wake = undefined;
    w();
  };
  const sink = new WritableStream<R>(
    {
      start(controller) {
        sinkController = controller;
      },
      write(chunk) {
        if (node().push(chunk) || ended) return undefined;
        return new Promise<void>((resolve) => {
          wake = resolve;
        });
      },
      close() {
        ended = true;
        node().push(null);
      },
    },
    { highWaterMark: 1 },
  );
  const onPipeError = (err: unknown): void => {
    if (ended) return;
    ended = true;
    node().destroy(err as Error);
  };

  return {
    read() {
      if (reader === undefined) {
        resume();
        return;
      }
      reader.releaseLock();
      reader = undefined;
      pipe = stream.pipeTo(sink);
      pipe.then(undefined, onPipeError);
    },
    destroy(err, callback) {
      if (ended) {
        callback(err);
        return;
      }
      ended = true;
      const failed = (cancelError: unknown): void => callback(err ?? (cancelError as Error));
      if (reader !== undefined) {
        reader.cancel(err ?? undefined).then(() => callback(err), failed);
        return;
      }
      // The pipe sees its destination error and cancels the stream with the same reason; its result is
      // the cancel's failure if there is one.
      resume();
      sinkController.error(err ?? undefined);
      pipe!.then(() => callback(err), failed);
    },
  };
}

/** The reading half over a stream of another implementation: one `read()` in flight per `_read()`. */
function readerReadSide<R>(stream: ReadableStream<R>, node: () => Readable): ReadSide {
  const reader: ReadableStreamDefaultReader<R> = stream.getReader();
  // Set when the web stream closed or errored, or was cancelled: nothing more to read or cancel.
  let ended = false;
  let reading = false;

  const onRead = (result: ReadableStreamReadResult<R>): void => {
    reading = false;
    const readable = node();
    if (result.done) {
      ended = true;
      readable.push(null);
      return;
    }
    if (readable.push(result.value) && !readable.destroyed) pump();
  };
  const onReadError = (err: unknown): void => {
    reading = false;
    ended = true;
    node().destroy(err as Error);
  };
  const pump = (): void => {
    if (reading || ended) return;
    reading = true;
    reader.read().then(onRead, onReadError);
  };

  return {
    read: pump,
    destroy(err, callback) {
      if (ended) {
        callback(err);
        return;
      }
      ended = true;
      cancelThenCall(reader, err, callback);
    },
  };
}

/**
 * Exposes a fusestreams (or any WHATWG) {@link ReadableStream} as a Node.js `Readable`, for APIs that
 * want Node.js streams (`pipeline()`, `res.pipe()`, `fs` streams, ...).
 *
 * - Backpressure: nothing is read before Node.js first calls `_read()`; then a fusestreams stream is
 *   piped into the Readable, each chunk pushed by a direct call (a fused pipe link) while `push()`
 *   returns `true` and the next one waiting for `_read()` otherwise, so the Readable's buffer stays
 *   at its high-water mark plus a chunk or two. A stream of another implementation is read with one
 *   `read()` in flight per `_read()`.
 * - An error of the web stream destroys the Readable with the same error object.
 * - `destroy(err)` on the Readable cancels the web stream with `err` (or `undefined`).
 * - The stream is locked for the Readable's whole life (to a reader, then to the pipe).
 *
 * Byte chunks (`Uint8Array`, including Buffers) and strings are emitted as Buffers unless
 * `objectMode` is set; other chunks need `objectMode: true`.
 *
 * ```ts
 * import { pipeline } from "node:stream/promises";
 * import { createWriteStream } from "node:fs";
 * import { toNodeReadable } from "fusestreams/node";
 *
 * await pipeline(toNodeReadable(webStream), createWriteStream("out.bin"));
 * ```
 *
 * @param stream the web stream; it gets locked.
 * @param options options of the Readable.
 * @returns a Node.js Readable that yields the stream's chunks.
 */
export function toNodeReadable<R = Uint8Array>(
  stream: ReadableStream<R>,
  options: ToNodeReadableOptions = {},
): Readable {
  // deno-lint-ignore prefer-const -- declared first: the closure below refers to it before it is made
  let readable: Readable | undefined;
  const side = createReadSide(stream, () => readable!);
  readable = new Readable({
    highWaterMark: options.highWaterMark,
    objectMode: options.objectMode ?? false,
    encoding: options.encoding,
    signal: options.signal,
    read: side.read,
    destroy: side.destroy,
  });
  return readable;
}
