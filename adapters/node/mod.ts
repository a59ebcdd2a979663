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
export { type FromNodeReadableOptions, fromNodeReadable } from "./from-node-readable.ts";
export { type ToNodeReadableOptions, toNodeReadable } from "./to-node-readable.ts";
export { type FromNodeWritableOptions, fromNodeWritable } from "./from-node-writable.ts";
export { type ToNodeWritableOptions, toNodeWritable } from "./to-node-writable.ts";
export {
  type FromNodeDuplexOptions,
  fromNodeDuplex,
  type ReadableWritablePair,
  type ToNodeDuplexOptions,
  toNodeDuplex,
} from "./duplex.ts";
export { isGlobalWebStreamsPatched, patchGlobalWebStreams, unpatchGlobalWebStreams } from "./patch.ts";
