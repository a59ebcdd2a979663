/**
 * FP-ENCODE-SHORT for an adapter (core/README.md): how long a string `TextEncoderStream` encodes in JavaScript
 * instead of calling the runtime's `TextEncoder`, chosen per runtime from measurement (bench/README.md).
 * @module
 */
import { setShortEncoder, utf8EncodeShort } from "../../core/internal.ts";

/**
 * Has `TextEncoderStream` encode strings of up to `limit` UTF-16 code units (and UTF-8 bytes) in JavaScript; 0
 * leaves every string to the runtime's encoder. The bytes are the same either way.
 */
export function installShortEncode(limit: number): void {
  setShortEncoder(utf8EncodeShort, limit);
}
