/**
 * Node.js adapter for fusestreams: the whole fusestreams API, plus interop with `node:stream` and an
 * opt-in patch of the global stream classes.
 *
 * ```ts
 * import { fromNodeReadable, toNodeReadable, TransformStream } from "fusestreams/node";
 * ```
 *
 * | function | converts |
 * | --- | --- |
 * | {@link fromNodeReadable} | Node.js `Readable` → `ReadableStream` |
 * | {@link toNodeReadable} | `ReadableStream` → Node.js `Readable` |
 * | {@link fromNodeWritable} | Node.js `Writable` → `WritableStream` |
 * | {@link toNodeWritable} | `WritableStream` → Node.js `Writable` |
 * | {@link fromNodeDuplex} | Node.js `Duplex` → `{ readable, writable }` |
 * | {@link toNodeDuplex} | `{ readable, writable }` → Node.js `Duplex` |
 *
 * @module
 */
export * from "../../mod.ts";
export { fromNodeReadable, type FromNodeReadableOptions } from "./from-node-readable.ts";
export { toNodeReadable, type ToNodeReadableOptions } from "./to-node-readable.ts";
export { fromNodeWritable, type FromNodeWritableOptions } from "./from-node-writable.ts";
export { toNodeWritable, type ToNodeWritableOptions } from "./to-node-writable.ts";
export {
  fromNodeDuplex,
  type FromNodeDuplexOptions,
  type ReadableWritablePair,
  toNodeDuplex,
  type ToNodeDuplexOptions,
} from "./duplex.ts";
import type { RuntimeAdapter, ToNativeReadableStream } from "../kit/contract.ts";
import { toNativeReadableStream as toNative } from "../kit/to-native.ts";
import { isGlobalWebStreamsPatched, patchGlobalWebStreams, unpatchGlobalWebStreams } from "./patch.ts";

/** The adapter contract's types (the same on every runtime). */
export type * from "../kit/contract.ts";
export { isGlobalWebStreamsPatched, patchGlobalWebStreams, unpatchGlobalWebStreams };

/**
 * A native (Node.js) `ReadableStream` that reads `stream`, for native APIs that take only their own
 * streams when the global patch is off (`Readable.fromWeb`, `node:stream/web` utilities). Backpressure
 * holds and cancel and errors propagate both ways; see {@link ToNativeReadableStream}.
 *
 * ```ts
 * import { ReadableStream, toNativeReadableStream } from "fusestreams/node";
 * import { Readable } from "node:stream";
 *
 * const node = Readable.fromWeb(toNativeReadableStream(ReadableStream.from(["a", "b"])));
 * ```
 */
export const toNativeReadableStream: ToNativeReadableStream = toNative;

/** The Node.js adapter as one object, checked against the adapter contract every runtime's adapter fulfils. */
export const adapter: RuntimeAdapter = {
  runtime: "node",
  patchGlobalWebStreams,
  unpatchGlobalWebStreams,
  isGlobalWebStreamsPatched,
  toNativeReadableStream,
};
