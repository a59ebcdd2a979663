/**
 * FP-ENCODE-LEND (core/README.md): a TextEncoderStream piped by a pipe of ours straight into a stream whose
 * transform reads each chunk's bytes before it returns and keeps none of them (our CompressionStream and
 * DecompressionStream: the codec contract, core/compression/codec.ts) writes each chunk's UTF-8 into a shared pool
 * instead of a new ArrayBuffer, and lends a view of it. Nothing else can see the view: the pipe holds the encoder's
 * readable side and the codec's writable side, so the chunk reaches the codec's transform or is dropped. Views
 * are taken one after the other; once every view lent from the pool has been given back (in a chain that keeps
 * up, before the encoder's enqueue returns), the next one starts at its beginning again. A pool that fills while
 * views are still out (held behind backpressure) is left to them, and a new one is made.
 * @module
 */
import { NativeUint8Array } from "../shared/primordials.ts";
import { setEncodeLender } from "../shared/lent-bytes.ts";
import { IsCodecTransform } from "../compression/codec-transform.ts";
import type { ReaderInternal } from "../readable/stream-internal.ts";
import { LivePipeDestination } from "../readable/pipe-to.ts";
import { utf8EncodeInto } from "./text-natives.ts";

/** The pool's size: strings of up to a third of it (UTF-8 is at most 3 bytes per UTF-16 code unit) are lent. */
const POOL_BYTES = 64 * 1024;

let pool: Uint8Array<ArrayBuffer> | undefined;
let poolBuffer: ArrayBuffer | undefined;
/** Bytes of the pool lent since it was last empty. */
let used = 0;
/** Views of the pool not given back yet. */
let out = 0;

/**
 * Whether the readable side of `stream` (a TextEncoderStream's transform) has one waiting read, a live pipe of ours
 * into our codec's transform.
 */
function lendsToCodec(stream: unknown): boolean {
  const reader = (stream as { readable: { reader: ReaderInternal | undefined } }).readable.reader;
  if (reader === undefined || reader.size !== 1) return false;
  // A reader owned by a pipe holds that pipe's read requests only. The destination's transform is read from its
  // internal slot: nothing of the user's is asked.
  const gate = LivePipeDestination(reader.owner)?.gate as { transformFn?: unknown } | undefined;
  return gate !== undefined && IsCodecTransform(gate.transformFn);
}

function lend(stream: unknown, input: string): Uint8Array<ArrayBuffer> | undefined {
  const most = input.length * 3;
  if (most > POOL_BYTES || !lendsToCodec(stream)) return undefined;
  if (pool === undefined || used + most > POOL_BYTES) {
    // Views still out keep the old pool's bytes as they are.
    pool = new NativeUint8Array(POOL_BYTES);
    poolBuffer = pool.buffer;
    used = 0;
    out = 0;
  }
  const start = used;
  const written = utf8EncodeInto(input, start === 0 ? pool : new NativeUint8Array(poolBuffer!, start));
  used += written;
  out++;
  return new NativeUint8Array(poolBuffer!, start, written);
}

function giveBackToPool(chunk: Uint8Array): void {
  if (out !== 0 && chunk.buffer === poolBuffer && --out === 0) used = 0;
}

/** Turns FP-ENCODE-LEND on or off for TextEncoderStream chunks from now on (for a runtime adapter, at load). */
export function setEncodeLending(on: boolean): void {
  if (on) setEncodeLender(lend, giveBackToPool);
  else setEncodeLender(undefined, undefined);
}
