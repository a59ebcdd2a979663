/**
 * The public types of TextEncoderStream and TextDecoderStream, as the environment's global interfaces (see
 * `readable.ts` for why), plus the classes behind them.
 * @module
 */
import { TextDecoderStream as TextDecoderStreamClass } from "../codecs/text-decoder-stream.ts";
import { TextEncoderStream as TextEncoderStreamClass } from "../codecs/text-encoder-stream.ts";
import type { TextDecoderOptions } from "../types.ts";

/** Strings in, UTF-8 bytes out (Encoding §7.4): the global interface. */
export type TextEncoderStream = globalThis.TextEncoderStream;

/** The `TextEncoderStream` constructor. */
export interface TextEncoderStreamConstructor {
  /** The prototype of every TextEncoderStream. */
  readonly prototype: TextEncoderStream;
  /** Creates a stream that encodes the strings written to it as UTF-8. */
  new (): TextEncoderStream;
}

/** Bytes in, strings out (Encoding §7.3): the global interface. */
export type TextDecoderStream = globalThis.TextDecoderStream;

/** The `TextDecoderStream` constructor. */
export interface TextDecoderStreamConstructor {
  /** The prototype of every TextDecoderStream. */
  readonly prototype: TextDecoderStream;
  /**
   * Creates a stream that decodes the bytes written to it from `label`'s encoding (default `"utf-8"`; any label
   * the runtime's `TextDecoder` supports, else a RangeError).
   */
  new (label?: string, options?: TextDecoderOptions): TextDecoderStream;
}

/**
 * A transform stream that encodes strings as UTF-8 (Encoding §7.4), the standard's `TextEncoderStream`. A
 * character whose surrogate pair is split across two chunks is encoded whole; a lone surrogate becomes U+FFFD.
 * Inside fusestreams it is one of our TransformStreams, so a chain of our streams through it is fused.
 *
 * @example
 * ```ts
 * import { ReadableStream, TextEncoderStream } from "fusestreams";
 *
 * const bytes = ReadableStream.from(["héllo", " wörld"]).pipeThrough(new TextEncoderStream());
 * for await (const chunk of bytes) console.log(chunk); // Uint8Array(6), Uint8Array(7)
 * ```
 */
export const TextEncoderStream: TextEncoderStreamConstructor =
  TextEncoderStreamClass as unknown as TextEncoderStreamConstructor;

/**
 * A transform stream that decodes bytes into strings (Encoding §7.3), the standard's `TextDecoderStream`, in
 * every encoding the runtime's `TextDecoder` supports. A character whose bytes are split across chunks is decoded
 * once its last byte arrives. With `fatal`, a malformed sequence errors the stream with a TypeError; with
 * `ignoreBOM`, a byte order mark at the start is kept. Inside fusestreams it is one of our TransformStreams, so a
 * chain of our streams through it is fused.
 *
 * @example
 * ```ts
 * import { ReadableStream, TextDecoderStream } from "fusestreams";
 *
 * const bytes = ReadableStream.from([new Uint8Array([0x68, 0xc3]), new Uint8Array([0xa9])]);
 * for await (const text of bytes.pipeThrough(new TextDecoderStream())) console.log(text); // "h", "é"
 * ```
 */
export const TextDecoderStream: TextDecoderStreamConstructor =
  TextDecoderStreamClass as unknown as TextDecoderStreamConstructor;
