/// <reference types="node" preserve="true" />
/**
 * `fromNodeDuplex` / `toNodeDuplex`: a Node.js Duplex as a `{ readable, writable }` pair of fusestreams
 * streams, and back.
 * @module
 */
import { Duplex } from "node:stream";
import type { ReadableStream, WritableStream } from "../../mod.ts";
import { fromNodeReadable, type FromNodeReadableOptions } from "./from-node-readable.ts";
import { fromNodeWritable, type FromNodeWritableOptions } from "./from-node-writable.ts";
import { createReadSide } from "./to-node-readable.ts";
import { createWriteSide } from "./to-node-writable.ts";

/** A readable and a writable side that belong together (the shape of a TransformStream or a socket). */
export interface ReadableWritablePair<R = Uint8Array, W = Uint8Array> {
  /** The side data is read from. */
  readable: ReadableStream<R>;
  /** The side data is written to. */
  writable: WritableStream<W>;
}

/** Options of {@link fromNodeDuplex}. */
export interface FromNodeDuplexOptions {
  /** Options of the readable side (see {@link fromNodeReadable}). */
  readable?: FromNodeReadableOptions;
  /** Options of the writable side (see {@link fromNodeWritable}). */
  writable?: FromNodeWritableOptions;
}

/**
 * Splits a Node.js Duplex (a socket, a `zlib` or `crypto` transform, ...) into a fusestreams readable
 * and writable pair, with the backpressure and error behaviour of {@link fromNodeReadable} and
 * {@link fromNodeWritable}. The pair can be passed to `pipeThrough()`:
 *
 * ```ts
 * import { createGzip } from "node:zlib";
 * import { fromNodeDuplex } from "fusestreams/node";
 *
 * const gzipped = webReadable.pipeThrough(fromNodeDuplex(createGzip()));
 * ```
 *
 * Cancelling the readable side or aborting the writable side destroys the whole Duplex; closing the
 * writable side only ends its writable half.
 *
 * @param duplex the Node.js Duplex.
 * @param options options of each side.
 * @returns the readable and writable side.
 */
export function fromNodeDuplex<R = Uint8Array, W = Uint8Array>(
  duplex: Duplex,
  options: FromNodeDuplexOptions = {},
): ReadableWritablePair<R, W> {
  return {
    readable: fromNodeReadable<R>(duplex, options.readable),
    writable: fromNodeWritable<W>(duplex, options.writable),
  };
}

/** Options of {@link toNodeDuplex} (passed on to the `Duplex` constructor). */
export interface ToNodeDuplexOptions {
  /** Keep the writable side open after the readable side ended (default `true`, as in Node.js). */
  allowHalfOpen?: boolean;
  /** Buffer limits of both sides (bytes, or chunks in object mode). */
  highWaterMark?: number;
  /** Object mode for both sides. */
  objectMode?: boolean;
  /** Object mode for the readable side only. */
  readableObjectMode?: boolean;
  /** Object mode for the writable side only. */
  writableObjectMode?: boolean;
  /** Decode the readable side's bytes to strings. */
  encoding?: BufferEncoding;
  /** Convert written strings to Buffers (default `true`). */
  decodeStrings?: boolean;
  /** Destroys the Duplex (cancelling and aborting both web streams) when the signal aborts. */
  signal?: AbortSignal;
}

/**
 * Joins a fusestreams readable and writable pair (a `TransformStream`, or the two sides of a
 * connection) into one Node.js `Duplex`, with the backpressure and error behaviour of
 * `toNodeReadable` and `toNodeWritable`. Destroying the Duplex cancels the readable side and aborts the
 * writable side with the same reason.
 *
 * ```ts
 * import { pipeline } from "node:stream/promises";
 * import { TransformStream } from "fusestreams";
 * import { toNodeDuplex } from "fusestreams/node";
 *
 * await pipeline(source, toNodeDuplex(new TransformStream()), destination);
 * ```
 *
 * @param pair the readable and writable side; both get locked.
 * @param options options of the Duplex.
 * @returns a Node.js Duplex.
 */
export function toNodeDuplex<R = Uint8Array, W = Uint8Array>(
  pair: ReadableWritablePair<R, W>,
  options: ToNodeDuplexOptions = {},
): Duplex {
  // deno-lint-ignore prefer-const -- declared first: the closure below refers to it before it is made
  let duplex: Duplex | undefined;
  const node = (): Duplex => duplex!;
  const readSide = createReadSide(pair.readable, node);
  const writeSide = createWriteSide(pair.writable, node);
  duplex = new Duplex({
    allowHalfOpen: options.allowHalfOpen ?? true,
    highWaterMark: options.highWaterMark,
    objectMode: options.objectMode ?? false,
    readableObjectMode: options.readableObjectMode ?? options.objectMode ?? false,
    writableObjectMode: options.writableObjectMode ?? options.objectMode ?? false,
    encoding: options.encoding,
    decodeStrings: options.decodeStrings ?? true,
    signal: options.signal,
    read: readSide.read,
    write: writeSide.write,
    writev: writeSide.writev,
    final: writeSide.final,
    destroy(err, callback) {
      let pending = 2;
      let first: Error | null | undefined;
      const done = (e?: Error | null): void => {
        if (first == null) first = e;
        if (--pending === 0) callback(first ?? err);
      };
      readSide.destroy(err, done);
      writeSide.destroy(err, done);
    },
  });
  return duplex;
}
