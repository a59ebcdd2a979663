/**
 * `json(stream)`: a whole stream of UTF-8 bytes parsed as JSON.
 * @module
 */
import { concatUint8Arrays } from "../shared/buffers.ts";
import { collectBytes } from "./collect.ts";
import { decodeUtf8 } from "./text.ts";
import type { AnyReadableStream } from "./types.ts";

/**
 * Reads `stream` to its end and resolves with its bytes, decoded as UTF-8 (as `text()` does), parsed as JSON,
 * like `new Response(stream).json()`. Rejects with a SyntaxError when the text is not JSON; otherwise errors and
 * locking as `bytes()`.
 *
 * @example
 * ```ts
 * import { json, ReadableStream } from "fusestreams";
 *
 * const stream = ReadableStream.from([new TextEncoder().encode('{"a":'), new TextEncoder().encode("1}")]);
 * console.log(await json(stream)); // { a: 1 }
 * ```
 *
 * @param stream a ReadableStream of Uint8Arrays (of fusestreams or of the runtime); it gets locked.
 * @returns a promise of the parsed value.
 */
export async function json(stream: AnyReadableStream<Uint8Array>): Promise<unknown> {
  const { chunks, length } = await collectBytes(stream, "json()");
  return JSON.parse(decodeUtf8(chunks.length === 1 ? chunks[0]! : concatUint8Arrays(chunks, length)));
}
