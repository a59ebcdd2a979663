/**
 * `text(stream)`: a whole stream of UTF-8 bytes as a string.
 * @module
 */
import { concatUint8Arrays } from "../shared/buffers.ts";
import { collectBytes } from "./collect.ts";
import type { AnyReadableStream } from "./types.ts";

let decoder: TextDecoder | undefined;

/** UTF-8 decode (Encoding §4.1): a leading byte order mark is dropped, invalid input becomes U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  return (decoder ??= new TextDecoder()).decode(bytes);
}

/**
 * Reads `stream` to its end and resolves with its bytes decoded as UTF-8, like `new Response(stream).text()`:
 * a character split between chunks is decoded whole, invalid bytes become U+FFFD (never an error) and a
 * leading byte order mark is dropped. Errors and locking as `bytes()`.
 *
 * @example
 * ```ts
 * import { ReadableStream, text } from "fusestreams";
 *
 * const euro = new TextEncoder().encode("€"); // 3 bytes, split across two chunks:
 * const stream = ReadableStream.from([euro.subarray(0, 1), euro.subarray(1)]);
 * console.log(await text(stream)); // "€"
 * ```
 *
 * @param stream a ReadableStream of Uint8Arrays (of fusestreams or of the runtime); it gets locked.
 * @returns a promise of the text.
 */
export async function text(stream: AnyReadableStream<Uint8Array>): Promise<string> {
  const { chunks, length } = await collectBytes(stream, "text()");
  return decodeUtf8(chunks.length === 1 ? chunks[0]! : concatUint8Arrays(chunks, length));
}
