/**
 * FP-ENCODE-LEND's hooks (the implementation is core/codecs/encode-lend.ts, installed by an adapter): the encoder's
 * way to a lent chunk, and the codec transform's way to give it back. Without the implementation installed,
 * nothing is lent, and a bundle leaves it out.
 * @module
 */

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
 * installed, or the chunk could reach something other than our codec's transform.
 */
export function lendEncoded(stream: unknown, input: string): Uint8Array<ArrayBuffer> | undefined {
  return lender === undefined ? undefined : lender(stream, input);
}

/** Called by our codec's transform once it has read `chunk`'s bytes (or failed). */
export function giveBack(chunk: Uint8Array): void {
  if (returner !== undefined) returner(chunk);
}
