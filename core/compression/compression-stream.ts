/**
 * CompressionStream (Compression §4): a TransformStream of ours that compresses the bytes written to it.
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

/** Compresses a stream of bytes: `readable.pipeThrough(new CompressionStream("gzip"))`. */
export class CompressionStream {
  /** Its sides, made when first asked for (codec-pair.ts). */
  #slot: CodecPairSlot;

  /** A compressor for `format`; a TypeError for a format the runtime's own CompressionStream does not accept. */
  constructor(format: CompressionFormat) {
    this.#slot = new CodecPairSlot(convertCompressionFormat(format, "compress"), "compress");
  }

  static {
    slotOf = (x) => (typeof x === "object" && x !== null && #slot in x ? x.#slot : undefined);
  }

  /** The compressed bytes. */
  get readable(): ReadableStream<Uint8Array> {
    const slot = slotOf(this);
    if (slot === undefined) throw typeError("Illegal invocation: not a CompressionStream");
    return slot.pair().readable;
  }

  /** Where the bytes to compress are written (BufferSource chunks). */
  get writable(): WritableStream<BufferSource> {
    const slot = slotOf(this);
    if (slot === undefined) throw typeError("Illegal invocation: not a CompressionStream");
    return slot.pair().writable;
  }
}
defineInterface(CompressionStream, "CompressionStream");
registerCodecPairSlots(slotOf, CompressionStream.prototype);
registerOwnCodecClass(CompressionStream);
