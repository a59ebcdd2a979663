/**
 * `blob(stream, { type })`: a whole stream of bytes as a Blob.
 * @module
 */
import { convertDictionary, convertDOMString } from "../shared/webidl.ts";
import { collectBytes } from "./collect.ts";
import type { AnyReadableStream } from "./types.ts";

/** Options of {@link blob}. */
export interface BlobOptions {
  /** The Blob's MIME type (normalized as the Blob constructor does; default `""`). */
  type?: string;
}

/**
 * Reads `stream` to its end and resolves with its bytes in a `Blob` of the given `type`, like
 * `new Response(stream).blob()`. Errors and locking as `bytes()`.
 *
 * @example
 * ```ts
 * import { blob, ReadableStream } from "fusestreams";
 *
 * const stream = ReadableStream.from([new TextEncoder().encode("<p>hi</p>")]);
 * const page = await blob(stream, { type: "text/html" });
 * console.log(page.size, page.type); // 9 "text/html"
 * ```
 *
 * @param stream a ReadableStream of Uint8Arrays (of fusestreams or of the runtime); it gets locked.
 * @param options `type`: the Blob's MIME type.
 * @returns a promise of the Blob.
 */
export async function blob(stream: AnyReadableStream<Uint8Array>, options?: BlobOptions): Promise<Blob> {
  const dict = convertDictionary(options, "blob() options");
  const type = dict === undefined || dict.type === undefined ? "" : convertDOMString(dict.type);
  const { chunks } = await collectBytes(stream, "blob()");
  return new Blob(chunks as BlobPart[], { type });
}
