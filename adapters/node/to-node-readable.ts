/// <reference types="node" preserve="true" />
/**
 * `toNodeReadable`: a fusestreams ReadableStream as a `node:stream` Readable.
 * @module
 */
import { Readable } from "node:stream";
import type { ReadableStream, ReadableStreamDefaultReader, ReadableStreamReadResult } from "../../mod.ts";

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
 * Builds the reading half of a Node.js stream over `stream`: locks the stream to a reader at once, and
 * pushes into `node()` (resolved lazily, since the Node.js stream is constructed with these methods).
 * @internal
 */
export function createReadSide<R>(stream: ReadableStream<R>, node: () => Readable): ReadSide {
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
      const done = (): void => callback(err);
      reader.cancel(err ?? undefined).then(done, (cancelError: unknown) => callback(err ?? (cancelError as Error)));
    },
  };
}

/**
 * Exposes a fusestreams (or any WHATWG) {@link ReadableStream} as a Node.js `Readable`, for APIs that
 * want Node.js streams (`pipeline()`, `res.pipe()`, `fs` streams, ...).
 *
 * - Backpressure: the stream is read only when Node.js calls `_read()`, i.e. while the Readable's buffer
 *   is below its high-water mark; one read is in flight at a time.
 * - An error of the web stream destroys the Readable with the same error object.
 * - `destroy(err)` on the Readable cancels the web stream with `err` (or `undefined`).
 * - The stream is locked to a reader for the Readable's whole life.
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
export function toNodeReadable<R = Uint8Array>(stream: ReadableStream<R>, options: ToNodeReadableOptions = {}): Readable {
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
