/**
 * `bytes(stream)`: a whole stream of bytes in one Uint8Array.
 * @module
 */
import { concatUint8Arrays } from "../shared/buffers.ts";
import { collectBytes } from "./collect.ts";
import type { AnyReadableStream } from "./types.ts";

/**
 * Reads `stream` to its end and resolves with all its bytes in one new `Uint8Array`, like
 * `new Response(stream).bytes()`. The chunks must be `Uint8Array`s (Node's `Buffer`s are).
 *
 * Rejects with a TypeError when `stream` is not a ReadableStream, is locked, or yields a chunk that is not a
 * Uint8Array (the stream is then cancelled with that TypeError), and with the stream's own error object when
 * it errors. A stream that was partly read already gives the rest. The lock is released at the end.
 *
 * On a fusestreams stream the queued chunks are taken in batches (see `readMany()`), with no promise per
 * chunk, and the result is allocated once at its final size.
 *
 * @example
 * ```ts
 * import { bytes } from "fusestreams";
 *
 * const body = await bytes((await fetch("https://example.com/")).body!);
 * console.log(body.byteLength);
 * ```
 *
 * @param stream a ReadableStream of Uint8Arrays (of fusestreams or of the runtime); it gets locked.
 * @returns a promise of the bytes.
 */
export async function bytes(stream: AnyReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const { chunks, length } = await collectBytes(stream, "bytes()");
  return concatUint8Arrays(chunks, length);
}
