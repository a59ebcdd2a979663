/**
 * `arrayBuffer(stream)`: a whole stream of bytes in one ArrayBuffer.
 * @module
 */
import { concatUint8Arrays } from "../shared/buffers.ts";
import { collectBytes } from "./collect.ts";
import type { AnyReadableStream } from "./types.ts";

/**
 * Reads `stream` to its end and resolves with all its bytes in one new `ArrayBuffer`, like
 * `new Response(stream).arrayBuffer()`. Errors and locking as `bytes()`.
 *
 * @example
 * ```ts
 * import { arrayBuffer, ReadableStream } from "fusestreams";
 *
 * const stream = ReadableStream.from([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * console.log((await arrayBuffer(stream)).byteLength); // 3
 * ```
 *
 * @param stream a ReadableStream of Uint8Arrays (of fusestreams or of the runtime); it gets locked.
 * @returns a promise of the bytes.
 */
export async function arrayBuffer(stream: AnyReadableStream<Uint8Array>): Promise<ArrayBuffer> {
  const { chunks, length } = await collectBytes(stream, "arrayBuffer()");
  return concatUint8Arrays(chunks, length).buffer;
}
