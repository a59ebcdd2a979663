/**
 * FP-ENCODE-LEND's hooks (the implementation is core/codecs/encode-lend.ts, installed by an adapter): the mark of
 * a transformer whose transform reads each chunk's bytes before it returns and keeps none of them, the encoder's
 * way to a lent chunk, and the transform's way to give it back. Without the implementation installed, nothing
 * is lent, and a bundle leaves it out.
 * @module
 */

/** The mark on a transformer whose transform reads a chunk's bytes before it returns and keeps none of them. */
export const READS_CHUNK_AT_ONCE: unique symbol = Symbol();

type Lend = (stream: unknown, input: string) => Uint8Array<ArrayBuffer> | undefined;
type GiveBack = (chunk: Uint8Array) => void;

let lender: Lend | undefined;
let returner: GiveBack | undefined;

/** Installs (or, with undefined, removes) FP-ENCODE-LEND's implementation. */
export function setEncodeLender(lend: Lend | undefined, giveBackTo: GiveBack | undefined): void {
  lender = lend;
  returner = giveBackTo;
}

/**
 * `input`'s UTF-8 as a lent view, for the TextEncoderStream whose transform is `stream`, or undefined: nothing
 * installed, or the chunk could reach something other than a transform marked {@link READS_CHUNK_AT_ONCE}.
 */
export function lendEncoded(stream: unknown, input: string): Uint8Array<ArrayBuffer> | undefined {
  return lender === undefined ? undefined : lender(stream, input);
}

/** Called by a transform marked {@link READS_CHUNK_AT_ONCE} once it has read `chunk`'s bytes. */
export function giveBack(chunk: Uint8Array): void {
  if (returner !== undefined) returner(chunk);
}
