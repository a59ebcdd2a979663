/**
 * DecompressionStream (Compression §5): a TransformStream of ours that decompresses the bytes written to it.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { typeError } from "../shared/webidl.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";
import type { WritableStream } from "../writable/writable-stream.ts";
import { CodecPairSlot, registerCodecPairSlots } from "./codec-pair.ts";
import { type CompressionFormat, convertCompressionFormat } from "./formats.ts";
import { registerOwnCodecClass } from "./native-classes.ts";

let slotOf: (x: unknown) => CodecPairSlot | undefined;

/** Decompresses a stream of bytes: `response.body.pipeThrough(new DecompressionStream("gzip"))`. */
export class DecompressionStream {
  /** Its sides, made when first asked for (codec-pair.ts). */
  #slot: CodecPairSlot;

  /** A decompressor for `format`; a TypeError for a format the runtime's own DecompressionStream does not accept. */
  constructor(format: CompressionFormat) {
    this.#slot = new CodecPairSlot(convertCompressionFormat(format, "decompress"), "decompress");
  }

  static {
    slotOf = (x) => (typeof x === "object" && x !== null && #slot in x ? x.#slot : undefined);
  }

  /** The decompressed bytes (a TypeError errors the stream when the input is corrupt, truncated or followed by more data). */
  get readable(): ReadableStream<Uint8Array> {
    const slot = slotOf(this);
    if (slot === undefined) throw typeError("Illegal invocation: not a DecompressionStream");
    return slot.pair().readable;
  }

  /** Where the compressed bytes are written (BufferSource chunks). */
  get writable(): WritableStream<BufferSource> {
    const slot = slotOf(this);
    if (slot === undefined) throw typeError("Illegal invocation: not a DecompressionStream");
    return slot.pair().writable;
  }
}
defineInterface(DecompressionStream, "DecompressionStream");
registerCodecPairSlots(slotOf, DecompressionStream.prototype);
registerOwnCodecClass(DecompressionStream);
