/// <reference types="node" preserve="true" />
/**
 * `toNodeWritable`: a fusestreams WritableStream as a `node:stream` Writable.
 * @module
 */
import { Writable } from "node:stream";
import type { WritableStream, WritableStreamDefaultWriter } from "../../mod.ts";
import { noop } from "./shared.ts";

/** Options of {@link toNodeWritable} (passed on to the `Writable` constructor). */
export interface ToNodeWritableOptions {
  /** Buffer limit of the Writable: bytes, or chunks in object mode. Node.js's default when omitted. */
  highWaterMark?: number;
  /** Accept any value as a chunk and pass it on as it is. */
  objectMode?: boolean;
  /** Convert written strings to Buffers before they reach the web stream (default `true`). */
  decodeStrings?: boolean;
  /** Encoding of written strings when no encoding is given to `write()`. */
  defaultEncoding?: BufferEncoding;
  /** Destroys the Writable (and so aborts the web stream) when the signal aborts. */
  signal?: AbortSignal;
}

type Callback = (err?: Error | null) => void;

/**
 * The writing half shared by {@link toNodeWritable} and `toNodeDuplex`.
 * @internal
 */
export interface WriteSide {
  write(chunk: unknown, encoding: BufferEncoding, callback: Callback): void;
  writev(chunks: { chunk: unknown; encoding: BufferEncoding }[], callback: Callback): void;
  final(callback: Callback): void;
  /** Aborts the web stream unless it already closed or errored; calls back when the abort settled. */
  destroy(err: Error | null, callback: Callback): void;
}

/**
 * Builds the writing half of a Node.js stream over `stream`: locks the stream to a writer at once. An
 * error of the web stream destroys `node()` with that error.
 * @internal
 */
export function createWriteSide<W>(stream: WritableStream<W>, node: () => Writable): WriteSide {
  const writer: WritableStreamDefaultWriter<W> = stream.getWriter();
  // Set when the web stream closed, errored or was aborted.
  let ended = false;
  writer.closed.then(
    () => {
      ended = true;
    },
    (err: unknown) => {
      if (ended) return;
      ended = true;
      node().destroy(err as Error);
    },
  );

  // Calls back once the writer has room again: at once when its queue is below the high-water mark.
  const whenReady = (callback: Callback): void => {
    const size = writer.desiredSize;
    if (size !== null && size > 0) callback();
    else writer.ready.then(() => callback(), callback);
  };

  return {
    write(chunk, _encoding, callback) {
      // Failures surface through writer.closed (which destroys the Writable with the same error).
      writer.write(chunk as W).then(undefined, noop);
      whenReady(callback);
    },
    writev(chunks, callback) {
      for (const { chunk } of chunks) writer.write(chunk as W).then(undefined, noop);
      whenReady(callback);
    },
    final(callback) {
      writer.close().then(() => callback(), callback);
    },
    destroy(err, callback) {
      if (ended) {
        callback(err);
        return;
      }
      ended = true;
      const done = (): void => callback(err);
      writer.abort(err ?? undefined).then(done, (abortError: unknown) => callback(err ?? (abortError as Error)));
    },
  };
}

/**
 * Exposes a fusestreams (or any WHATWG) {@link WritableStream} as a Node.js `Writable`, for APIs that
 * write into Node.js streams (`pipeline()`, `readable.pipe()`, ...).
 *
 * - Backpressure: a `write()` is acknowledged as soon as the web stream's queue is below its
 *   high-water mark (`writer.desiredSize > 0`), otherwise when `writer.ready` fulfills; so the web
 *   stream's queue fills up to its high-water mark before Node.js starts buffering.
 * - `end()` closes the web stream; `'finish'` comes after the sink's `close()` completed.
 * - `destroy(err)` aborts the web stream with `err` (or `undefined`).
 * - An error of the web stream (a failing `write()` or `close()` of the sink) destroys the Writable
 *   with the same error object.
 *
 * ```ts
 * import { pipeline } from "node:stream/promises";
 * import { createReadStream } from "node:fs";
 * import { toNodeWritable } from "fusestreams/node";
 *
 * await pipeline(createReadStream("in.bin"), toNodeWritable(webWritable));
 * ```
 *
 * @param stream the web stream; it gets locked to a writer.
 * @param options options of the Writable.
 * @returns a Node.js Writable that writes into the stream.
 */
export function toNodeWritable<W = Uint8Array>(
  stream: WritableStream<W>,
  options: ToNodeWritableOptions = {},
): Writable {
  // deno-lint-ignore prefer-const -- declared first: the closure below refers to it before it is made
  let writable: Writable | undefined;
  const side = createWriteSide(stream, () => writable!);
  writable = new Writable({
    highWaterMark: options.highWaterMark,
    objectMode: options.objectMode ?? false,
    decodeStrings: options.decodeStrings ?? true,
    defaultEncoding: options.defaultEncoding,
    signal: options.signal,
    write: side.write,
    writev: side.writev,
    final: side.final,
    destroy: side.destroy,
  });
  return writable;
}
