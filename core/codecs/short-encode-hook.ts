/**
 * The hook by which an adapter gives `TextEncoderStream` a JavaScript encoder for short strings
 * (FP-ENCODE-SHORT, core/README.md): the core's `utf8EncodeShort` and the length up to which it is used, chosen per
 * runtime from measurement. Without an adapter that installs it, every string goes to the runtime's encoder and a
 * bundle leaves the encoder out.
 * @module
 */

let shortEncoder: (input: string, maxBytes: number) => Uint8Array<ArrayBuffer> | undefined = noShortEncoder;
let shortEncodeLimit = 0;

function noShortEncoder(): undefined {
  return undefined;
}

/**
 * Has `TextEncoderStream` give strings of up to `limit` UTF-16 code units (and UTF-8 bytes) to `encode` (the core's
 * `utf8EncodeShort`) instead of the runtime's encoder; a limit of 0 turns that off. For an adapter, at load: the
 * bytes are the same either way.
 */
export function setShortEncoder(
  encode: (input: string, maxBytes: number) => Uint8Array<ArrayBuffer> | undefined,
  limit: number,
): void {
  shortEncoder = encode;
  shortEncodeLimit = limit;
}

/** `input` encoded by the installed short-string encoder, or undefined when it is not one for that encoder. */
export function encodeShort(input: string): Uint8Array<ArrayBuffer> | undefined {
  return input.length <= shortEncodeLimit ? shortEncoder(input, shortEncodeLimit) : undefined;
}
