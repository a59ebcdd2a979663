/**
 * `TextDecoderStream` (Encoding §7.3): bytes in, strings out, in every encoding the runtime's `TextDecoder`
 * supports. Its [[transform]] is one of our TransformStreams (set up as another specification sets one up), so a
 * pipe chain through it fuses like any other chain of ours. The decoding itself is the runtime's `TextDecoder`
 * in streaming mode, which keeps a character split across chunks until its last byte arrives.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { convertBoolean, convertDictionary, convertDOMString, typeError } from "../shared/webidl.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";
import type { WritableStream } from "../writable/writable-stream.ts";
import {
  SetUpTransformStream,
  TransformStreamEnqueue,
  type TransformStreamHandle,
} from "../transform/transform-stream.ts";
import { allowSharedBufferSourceBytes } from "./allow-shared-buffer-source.ts";
import { decodeEnd, decodeStream, newTextDecoder, textDecoderEncoding } from "./text-natives.ts";

/** A TextDecoderStream's decoder state: its transform and the runtime's decoder (its I/O queue and BOM seen). */
class DecoderState {
  stream!: TransformStreamHandle;
  readonly decoder: TextDecoder;

  constructor(decoder: TextDecoder) {
    this.decoder = decoder;
  }
}

/**
 * "Decode and enqueue a chunk" (Encoding §7.3): the chunk must be an AllowSharedBufferSource (else a TypeError);
 * its bytes are decoded at once (a copy in effect: the chunk's buffer may change afterwards), and the string of
 * every character they complete is enqueued unless it is empty. An error in fatal mode is the decoder's
 * TypeError, which errors the stream.
 */
function decodeAndEnqueue(this: DecoderState, chunk: unknown): void {
  const output = decodeStream(this.decoder, allowSharedBufferSourceBytes(chunk));
  if (output !== "") TransformStreamEnqueue(this.stream, output);
}

/**
 * "Flush and enqueue" (Encoding §7.3): the end of the queue; bytes of an unfinished character are an error
 * (U+FFFD, or a TypeError in fatal mode).
 */
function decodeFlush(this: DecoderState): void {
  const output = decodeEnd(this.decoder, undefined);
  if (output !== "") TransformStreamEnqueue(this.stream, output);
}

let isTextDecoderStream: (x: unknown) => boolean;

function illegal(): TypeError {
  return typeError("Illegal invocation: not a TextDecoderStream");
}

/** The class behind the public `TextDecoderStream` constant (core/api/text-codecs.ts). */
export class TextDecoderStream {
  #encoding: string;
  #fatal: boolean;
  #ignoreBOM: boolean;
  #readable: ReadableStream<string>;
  #writable: WritableStream<AllowSharedBufferSource>;

  /**
   * A TextDecoderStream for `label`'s encoding (default UTF-8): the runtime's `TextDecoder` decides which labels
   * it supports (a RangeError for any other, and for the replacement encoding's labels). `fatal`: a malformed
   * sequence errors the stream with a TypeError instead of decoding to U+FFFD. `ignoreBOM`: a byte order mark
   * at the start is kept in the output instead of being skipped.
   */
  constructor(label: unknown = "utf-8", options: unknown = undefined) {
    // WebIDL converts the arguments in order (the label to a DOMString, then the dictionary's members in
    // lexicographic order) before the constructor's steps look the label up.
    const labelString = convertDOMString(label);
    const dict = convertDictionary(options, "TextDecoderStream options");
    const fatal = dict === undefined ? false : convertBoolean(dict.fatal);
    const ignoreBOM = dict === undefined ? false : convertBoolean(dict.ignoreBOM);
    const decoder = newTextDecoder(labelString, fatal, ignoreBOM);
    const state = new DecoderState(decoder);
    const transform = SetUpTransformStream<DecoderState, AllowSharedBufferSource, string>(
      state,
      decodeAndEnqueue,
      decodeFlush,
    );
    state.stream = transform.stream;
    this.#encoding = textDecoderEncoding(decoder);
    this.#fatal = fatal;
    this.#ignoreBOM = ignoreBOM;
    this.#readable = transform.readable;
    this.#writable = transform.writable;
  }

  static {
    isTextDecoderStream = (x) => typeof x === "object" && x !== null && #encoding in x;
  }

  /** The encoding's name, lowercased (`"utf-8"`, `"utf-16le"`, `"windows-1252"`, ...). */
  get encoding(): string {
    if (!isTextDecoderStream(this)) throw illegal();
    return this.#encoding;
  }

  /** Whether a malformed sequence errors the stream (`fatal`). */
  get fatal(): boolean {
    if (!isTextDecoderStream(this)) throw illegal();
    return this.#fatal;
  }

  /** Whether a byte order mark at the start is kept (`ignoreBOM`). */
  get ignoreBOM(): boolean {
    if (!isTextDecoderStream(this)) throw illegal();
    return this.#ignoreBOM;
  }

  /** The readable side: strings. */
  get readable(): ReadableStream<string> {
    if (!isTextDecoderStream(this)) throw illegal();
    return this.#readable;
  }

  /** The writable side: `ArrayBuffer`s, `SharedArrayBuffer`s and views on them. */
  get writable(): WritableStream<AllowSharedBufferSource> {
    if (!isTextDecoderStream(this)) throw illegal();
    return this.#writable;
  }
}
defineInterface(TextDecoderStream, "TextDecoderStream");
