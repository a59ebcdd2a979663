/**
 * DecompressionStream (Compression §5): a TransformStream of ours that decompresses the bytes written to it.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { typeError } from "../shared/webidl.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";
import type { TransformStream } from "../transform/transform-stream.ts";
import type { WritableStream } from "../writable/writable-stream.ts";
import { createCodecTransform } from "./codec-transform.ts";
import { type CompressionFormat, convertCompressionFormat } from "./formats.ts";
import { registerOwnCodecClass } from "./native-classes.ts";

let transformOf: (x: unknown) => TransformStream<BufferSource, Uint8Array> | undefined;

/** Decompresses a stream of bytes: `response.body.pipeThrough(new DecompressionStream("gzip"))`. */
export class DecompressionStream {
  #transform: TransformStream<BufferSource, Uint8Array>;

  /** A decompressor for `format`; a TypeError for a format the runtime's own DecompressionStream does not accept. */
  constructor(format: CompressionFormat) {
    this.#transform = createCodecTransform(convertCompressionFormat(format, "decompress"), "decompress");
  }

  static {
    transformOf = (x) => (typeof x === "object" && x !== null && #transform in x ? x.#transform : undefined);
  }

  /** The decompressed bytes (a TypeError errors the stream when the input is corrupt, truncated or followed by more data). */
  get readable(): ReadableStream<Uint8Array> {
    const transform = transformOf(this);
    if (transform === undefined) throw typeError("Illegal invocation: not a DecompressionStream");
    return transform.readable;
  }

  /** Where the compressed bytes are written (BufferSource chunks). */
  get writable(): WritableStream<BufferSource> {
    const transform = transformOf(this);
    if (transform === undefined) throw typeError("Illegal invocation: not a DecompressionStream");
    return transform.writable;
  }
}
defineInterface(DecompressionStream, "DecompressionStream");
registerOwnCodecClass(DecompressionStream);
