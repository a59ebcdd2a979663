/**
 * The codec contract: what does the compressing or decompressing behind our CompressionStream and
 * DecompressionStream, and the hook by which a runtime adapter installs its own (e.g. `node:zlib` on
 * Node.js, Deno and Bun). Without one, the default codec drives the runtime's own streams in batches
 * (`native-codec.ts`), so the core works on any runtime that has them.
 *
 * The hook is for the adapters (exported through the private entry point), never public API.
 * @module
 */
import type { CodecMode, CompressionFormat } from "./formats.ts";
import { createNativeCodec } from "./native-codec.ts";

/**
 * Where a codec's output goes. `enqueue` and `copy` take each output chunk, in order, as soon as the codec has it;
 * `error` reports a failure found outside a `push()` or `finish()` call (an asynchronous codec), as a TypeError for
 * bad input.
 */
export interface CodecSink {
  /** One output chunk: a Uint8Array over an ArrayBuffer no other chunk shares, not empty. */
  enqueue(chunk: Uint8Array): void;
  /**
   * One output chunk that is the first `length` bytes (not none) of `from`, a buffer the codec writes again once
   * this returns: the sink copies them (into a chunk of their own, or where a consumer that took the stream's
   * output whole keeps its bytes: FP-CODEC-INTO).
   */
  copy(from: Uint8Array, length: number): void;
  /** Errors the stream (both sides) with `reason`. */
  error(reason: unknown): void;
}

/**
 * A compressor or decompressor for one stream. Calls come one at a time: `push()` is not called again
 * before the promise it returned (if any) settles, nor `finish()` before that.
 */
export interface CompressionCodec {
  /**
   * Takes the bytes of one written chunk (not empty). They are read before `push()` returns: the codec
   * copies what it keeps. Output goes to the sink, at once or later. Returns undefined when the codec can take
   * the next chunk now, or a promise that settles when it can (backpressure). Throws (or rejects with) a
   * TypeError for corrupt input or input after the end of the compressed data.
   */
  push(bytes: Uint8Array): Promise<void> | undefined;
  /**
   * The end of the input: hands the sink all remaining output before it returns or its promise settles.
   * Throws (rejects with) a TypeError when the compressed input ended early.
   */
  finish(): Promise<void> | undefined;
  /**
   * Frees what the codec holds, at once (after finish, an error, a cancel or an abort, whose `reason` it may pass
   * on); may be called twice.
   */
  release(reason?: unknown): void;
  /**
   * NATIVE-CODEC-HANDBACK (optional): when the codec is a stream of the runtime's own and none of its output has
   * been read yet, stops handing output to the sink for good and returns that stream's readable side, for a
   * consumer of the runtime's own to read it; otherwise undefined (and nothing changes).
   */
  takeNativeOutput?(): globalThis.ReadableStream<Uint8Array> | undefined;
}

/**
 * Makes a codec for `format` (one the runtime's own classes accept), or returns undefined to leave the format
 * to the default codec.
 */
export type CompressionCodecFactory = (
  format: CompressionFormat,
  mode: CodecMode,
  sink: CodecSink,
) => CompressionCodec | undefined;

let installed: CompressionCodecFactory | undefined;

/**
 * Installs the codec factory every CompressionStream and DecompressionStream made from now on asks first
 * (a runtime adapter's fastest codec); `undefined` goes back to the default. Returns the one it replaces.
 * Not public API: the adapters reach it through the core's private entry point.
 */
export function setCompressionCodecFactory(
  factory: CompressionCodecFactory | undefined,
): CompressionCodecFactory | undefined {
  const previous = installed;
  installed = factory;
  return previous;
}

/** The factory installed now (what a stream made now asks, even if its codec is made later). */
export function installedCodecFactory(): CompressionCodecFactory | undefined {
  return installed;
}

/**
 * The codec for a new stream: `factory`'s (the factory installed when the stream was made), else the default
 * (the runtime's own streams).
 */
export function createCodec(
  format: CompressionFormat,
  mode: CodecMode,
  sink: CodecSink,
  factory: CompressionCodecFactory | undefined = installed,
): CompressionCodec {
  return factory?.(format, mode, sink) ?? createNativeCodec(format, mode, sink);
}
