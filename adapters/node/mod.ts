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
import type { PatchOptions, RuntimeAdapter, ToNativeReadableStream } from "../kit/contract.ts";
import { createRuntimeAdapter } from "../kit/runtime-adapter.ts";
import { toNativeReadableStream as toNative } from "../kit/to-native.ts";
import { NODE_PATCH, onNode } from "./patch.ts";
import process from "node:process";
import { installZlibCodec } from "../kit/zlib-codec.ts";
import { installShortEncode } from "../kit/short-encode.ts";

/** The adapter contract's types (the same on every runtime). */
export type * from "../kit/contract.ts";

// ZLIB-SYNC (installed on this runtime only: another adapter loaded in the same process leaves the codec alone):
// CompressionStream and DecompressionStream run node:zlib's handle synchronously, the fastest codec
// measured on Node.js (bench/README.md, codec rows); node:zlib is loaded when the first of them is made. The
// output is byte for byte Node.js' own CompressionStream's. Four output chunks may wait unread, so a write
// resolves before anyone reads, as with Node's own classes (its test-webstreams-compression-buffer-source.js).
if (onNode()) installZlibCodec(() => process.getBuiltinModule?.("node:zlib"), { outputQueue: 4 });

// FP-ENCODE-SHORT (on this runtime only, as the codec above): TextEncoderStream encodes strings of up to 64 code
// units and bytes in JavaScript. Node's TextEncoder.encode() costs about 300 ns at any length (a call into C++
// and a buffer outside the heap); V8 keeps a typed array of up to 64 bytes on its heap, where an ASCII string of
// 8 characters encodes in about 45 ns and one of 64 in 190 (bench/README.md).
if (onNode()) installShortEncode(64);

/** The Node.js adapter as one object, checked against the adapter contract every runtime's adapter fulfils. */
export const adapter: RuntimeAdapter = /* @__PURE__ */ createRuntimeAdapter({
  runtime: "node",
  displayName: "Node.js",
  detect: onNode,
  ...NODE_PATCH,
});

/**
 * Replaces the global stream classes with fusestreams' for the whole process, so that code that uses
 * the globals (`new ReadableStream(...)`, `new Response(stream)`, `fetch(...).body`, ...) gets
 * fusestreams streams. Calling it again while patched does nothing.
 *
 * What it changes (all of it undone by {@link unpatchGlobalWebStreams}):
 *
 * - `globalThis.ReadableStream`, `WritableStream`, `TransformStream`, their readers, writers and
 *   controllers, `ReadableStreamBYOBRequest`, `ByteLengthQueuingStrategy` and `CountQueuingStrategy`
 *   become fusestreams' classes.
 * - `instanceof` keeps working both ways: a native stream is `instanceof` the patched global class
 *   (`Symbol.hasInstance` on fusestreams' classes), and a fusestreams stream is `instanceof` the native
 *   class (fusestreams' prototypes inherit from the native prototypes while patched, so Node.js's own
 *   checks, such as undici's body type check, accept them).
 * - `Response.prototype.body` and `Request.prototype.body` return a fusestreams stream: the body itself
 *   when undici created it after the patch (it then uses the global classes), otherwise a shell of the
 *   native body's kind (a byte stream for a byte stream) that reads it (one native read per chunk) and
 *   whose lock the body methods (`text()`, `clone()`...) respect.
 * - `pipeTo()` / `pipeThrough()` of native and fusestreams ReadableStreams accept a destination of the
 *   other kind (for example fusestreams streams piped through the native `CompressionStream`,
 *   `DecompressionStream`, `TextEncoderStream` or `TextDecoderStream`, which stay native).
 * - `new Response(fusestreamsStream)` works, and `text()`, `arrayBuffer()`, `json()` read it.
 *
 * ```ts
 * import { patchGlobalWebStreams } from "fusestreams/node";
 *
 * patchGlobalWebStreams();
 * const res = await fetch("http://127.0.0.1:8080/");
 * const upper = res.body!.pipeThrough(new TransformStream()); // fusestreams all the way
 * ```
 *
 * Node.js only: the same classes are available everywhere from `fusestreams` without any patch.
 *
 * @param options See {@link PatchOptions}; `compression` changes nothing on Node.js (its zlib makes the same bytes
 * however its input is cut, and chunks are gathered either way).
 */
export function patchGlobalWebStreams(options?: PatchOptions): void {
  adapter.patchGlobalWebStreams(options);
}

/**
 * Undoes {@link patchGlobalWebStreams}: every global, prototype property and prototype link it changed
 * is put back exactly as it was (same values and property attributes). Does nothing when not patched.
 */
export function unpatchGlobalWebStreams(): void {
  adapter.unpatchGlobalWebStreams();
}

/** Whether {@link patchGlobalWebStreams} is in effect (from this copy of fusestreams). */
export function isGlobalWebStreamsPatched(): boolean {
  return adapter.isGlobalWebStreamsPatched();
}

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
