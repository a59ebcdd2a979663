/**
 * CompressionStream (Compression §4): a TransformStream of ours that compresses the bytes written to it.
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

/** Compresses a stream of bytes: `readable.pipeThrough(new CompressionStream("gzip"))`. */
export class CompressionStream {
  #transform: TransformStream<BufferSource, Uint8Array>;

  /** A compressor for `format`; a TypeError for a format the runtime's own CompressionStream does not accept. */
  constructor(format: CompressionFormat) {
    this.#transform = createCodecTransform(convertCompressionFormat(format, "compress"), "compress");
  }

  static {
    transformOf = (x) => (typeof x === "object" && x !== null && #transform in x ? x.#transform : undefined);
  }

  /** The compressed bytes. */
  get readable(): ReadableStream<Uint8Array> {
    const transform = transformOf(this);
    if (transform === undefined) throw typeError("Illegal invocation: not a CompressionStream");
    return transform.readable;
  }

  /** Where the bytes to compress are written (BufferSource chunks). */
  get writable(): WritableStream<BufferSource> {
    const transform = transformOf(this);
    if (transform === undefined) throw typeError("Illegal invocation: not a CompressionStream");
    return transform.writable;
  }
}
defineInterface(CompressionStream, "CompressionStream");
registerOwnCodecClass(CompressionStream);
