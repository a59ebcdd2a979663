/**
 * The public types of CompressionStream and DecompressionStream, as the environment's global interfaces (see
 * `readable.ts` for why), plus the classes behind them.
 * @module
 */
import { CompressionStream as CompressionStreamClass } from "../compression/compression-stream.ts";
import { DecompressionStream as DecompressionStreamClass } from "../compression/decompression-stream.ts";
import type { CompressionFormat } from "../compression/formats.ts";

export type { CompressionFormat };

/** A stream that compresses the bytes written to it (Compression §4): the global interface. */
export type CompressionStream = globalThis.CompressionStream;

/** The `CompressionStream` constructor. */
export interface CompressionStreamConstructor {
  /** The prototype of every CompressionStream. */
  readonly prototype: CompressionStream;
  /**
   * Creates a compressor for `format`: `"gzip"`, `"deflate"`, `"deflate-raw"`, or another format the
   * runtime's own CompressionStream accepts (`"brotli"`, `"zstd"`); a TypeError otherwise.
   */
  new (format: CompressionFormat): CompressionStream;
}

/** A stream that decompresses the bytes written to it (Compression §5): the global interface. */
export type DecompressionStream = globalThis.DecompressionStream;

/** The `DecompressionStream` constructor. */
export interface DecompressionStreamConstructor {
  /** The prototype of every DecompressionStream. */
  readonly prototype: DecompressionStream;
  /**
   * Creates a decompressor for `format`: `"gzip"`, `"deflate"`, `"deflate-raw"`, or another format the
   * runtime's own DecompressionStream accepts (`"brotli"`, `"zstd"`); a TypeError otherwise.
   */
  new (format: CompressionFormat): DecompressionStream;
}

/**
 * Compresses a stream of bytes (Compression §4): `new CompressionStream(format)`. Its `readable` and
 * `writable` are fusestreams streams, so a pipe chain through it is fused; the codec is the runtime's
 * fastest (`node:zlib` on Node.js, Deno and Bun through their adapters, the runtime's own stream elsewhere).
 *
 * @example
 * ```ts
 * import { CompressionStream, ReadableStream } from "fusestreams";
 *
 * const gzipped = ReadableStream.from(["<p>hello</p>"])
 *   .pipeThrough(new TextEncoderStream())
 *   .pipeThrough(new CompressionStream("gzip"));
 * const bytes = new Uint8Array(await new Response(gzipped).arrayBuffer());
 * ```
 */
export const CompressionStream: CompressionStreamConstructor =
  CompressionStreamClass as unknown as CompressionStreamConstructor;

/**
 * Decompresses a stream of bytes (Compression §5): `new DecompressionStream(format)`. Corrupt or truncated
 * input, and any data after the end of the compressed stream, error it with a TypeError.
 *
 * @example
 * ```ts
 * import { DecompressionStream } from "fusestreams";
 *
 * const response = await fetch("https://example.com/data.gz");
 * const text = await new Response(response.body!.pipeThrough(new DecompressionStream("gzip"))).text();
 * ```
 */
export const DecompressionStream: DecompressionStreamConstructor =
  DecompressionStreamClass as unknown as DecompressionStreamConstructor;
