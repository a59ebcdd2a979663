/**
 * The runtime adapter contract: what `fusestreams/node`, `/deno`, `/bun` and `/edge` each export with the
 * same names and types. Every adapter declares its exports with these function types and exports an
 * `adapter` object typed as {@link RuntimeAdapter}, so `tsc` checks each one against this file.
 * @module
 */
import type { ReadableStream } from "../../core/internal.ts";

/** The runtimes fusestreams has an adapter for (`edge`: workerd, edge-light, browsers). */
export type RuntimeName = "node" | "deno" | "bun" | "edge";

/** What {@link PatchGlobalWebStreams} may be told; every member is optional. */
export interface PatchOptions {
  /**
   * How fusestreams' `CompressionStream` (the global and the exported class) feeds the runtime's compressor while
   * the patch is in effect:
   * - `"runtime"` (the default): as the runtime's own `CompressionStream` does, so the compressed bytes are the same
   *   with the patch on and off (Deno: every written chunk's output ends with a flush and can be decompressed at
   *   once; Bun: one call into the compressor per chunk).
   * - `"batched"`: written chunks are gathered into 16 KiB before each call into the compressor, and nothing is
   *   flushed before the stream ends or the compressor's buffers fill, as Node.js' own `CompressionStream` does:
   *   less CPU on Deno and Bun (and on Deno smaller output), but bytes that differ from the runtime's own stream's
   *   (they decompress to the same), and on Deno a chunk's compressed bytes no longer come out as soon as it is written
   *   (not for a stream a reader must see piece by piece, such as server-sent events). On Node.js and the edge
   *   runtimes the two are the same.
   *
   * Streams made before the patch keep what they had.
   */
  readonly compression?: "runtime" | "batched";
}

/**
 * Makes the runtime's global stream classes fusestreams' for the whole realm, all or nothing: if a step
 * fails, everything already changed is put back and the error names the step. Calling it again while
 * patched does nothing (a `TypeError` when `options` ask for something else than the patch in effect).
 * Throws a `TypeError` at once, changing nothing, when called on another runtime or with options it does not
 * know.
 */
export type PatchGlobalWebStreams = (options?: PatchOptions) => void;

/**
 * Puts back exactly every global, prototype property and prototype link the patch changed. Should some
 * of them have been made unchangeable meanwhile (frozen), everything else is put back and a `TypeError`
 * names what could not be.
 */
export type UnpatchGlobalWebStreams = () => void;

/** Whether the patch of this copy of fusestreams is in effect. */
export type IsGlobalWebStreamsPatched = () => boolean;

/**
 * A ReadableStream of the runtime's own (native) class that reads `stream`: the documented way to hand one
 * of our streams to a native API without the patch. It reads `stream` only when its own consumer pulls, and
 * each pull takes every chunk `stream` has queued, in one step, or waits for the next one (backpressure
 * holds: a slow consumer never makes us buffer more than twice `stream`'s queue, the chunks handed over and
 * the queue its high-water mark refills);
 * cancelling it cancels `stream` with the same reason, and an error of `stream` errors it with the same
 * error. A stream that is already native is returned as it is.
 */
export type ToNativeReadableStream = <R>(
  stream: ReadableStream<R> | globalThis.ReadableStream<R>,
) => globalThis.ReadableStream<R>;

/** The contract every runtime adapter fulfils (`export const adapter: RuntimeAdapter = { ... }`). */
export interface RuntimeAdapter {
  /** The runtime the adapter is for. */
  readonly runtime: RuntimeName;
  /** See {@link PatchGlobalWebStreams}. */
  readonly patchGlobalWebStreams: PatchGlobalWebStreams;
  /** See {@link UnpatchGlobalWebStreams}. */
  readonly unpatchGlobalWebStreams: UnpatchGlobalWebStreams;
  /** See {@link IsGlobalWebStreamsPatched}. */
  readonly isGlobalWebStreamsPatched: IsGlobalWebStreamsPatched;
  /** See {@link ToNativeReadableStream}. */
  readonly toNativeReadableStream: ToNativeReadableStream;
}
