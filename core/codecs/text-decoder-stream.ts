/**
 * `TextDecoderStream` (Encoding §7.3): bytes in, strings out, in every encoding the runtime's `TextDecoder`
 * supports. Its [[transform]] is one of our TransformStreams (set up as another specification sets one up), so a
 * pipe chain through it fuses like any other chain of ours. The decoding itself is the runtime's `TextDecoder`
 * in streaming mode, which keeps a character split across chunks until its last byte arrives.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { JAVASCRIPTCORE } from "../shared/primordials.ts";
import { convertBoolean, convertDictionary, convertDOMString, typeError } from "../shared/webidl.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";
import type { WritableStream } from "../writable/writable-stream.ts";
import {
  SetUpTransformStream,
  TransformStreamEnqueue,
  type TransformStreamHandle,
} from "../transform/transform-stream.ts";
import { allowSharedBufferSourceBytes } from "./allow-shared-buffer-source.ts";
import {
  bytesLength,
  bytesSliceFrom,
  bytesSubarray,
  concatBytes,
  decodeEnd,
  decodeStream,
  newTextDecoder,
  textDecoderEncoding,
} from "./text-natives.ts";
import { utf8SequenceEnd, utf8UnfinishedStart } from "./utf8-boundary.ts";

/**
 * Whether UTF-8 is decoded by FP-DECODE-WHOLE: on V8 (Node.js, Deno), where a decode without streaming is the
 * runtime's fastest (Node.js 22 drops its UTF-8 fast path for good once a decoder streams), not on JavaScriptCore
 * (Bun), whose streaming decode is as fast and where the extra calls measured 0.72-0.98x (core/README.md).
 */
const DECODE_WHOLE = !JAVASCRIPTCORE;

/**
 * A TextDecoderStream's decoder state: its transform and the runtime's decoder (the spec's decoder, I/O queue and
 * BOM seen). For UTF-8 (FP-DECODE-WHOLE) the bytes of a character cut at a chunk's end are kept here instead
 * (`unfinished`), and the runtime's decoders are only ever asked to decode whole characters without streaming:
 * `decoder` (with the stream's `ignoreBOM`) until the first character has been decoded, `rest` (ignoring a BOM)
 * after that.
 */
class DecoderState {
  stream!: TransformStreamHandle;
  readonly decoder: TextDecoder;
  /** FP-DECODE-WHOLE applies (UTF-8). */
  readonly whole: boolean;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  /** FP-DECODE-WHOLE: undefined until the first character has been decoded, then the decoder for the rest. */
  rest: TextDecoder | undefined = undefined;
  /** The bytes of an unfinished character at the end of the last chunk (FP-DECODE-WHOLE), copied. */
  unfinished: Uint8Array | undefined = undefined;

  constructor(decoder: TextDecoder, whole: boolean, fatal: boolean, ignoreBOM: boolean) {
    this.decoder = decoder;
    this.whole = whole;
    this.fatal = fatal;
    this.ignoreBOM = ignoreBOM;
  }
}

/**
 * "Decode and enqueue a chunk" (Encoding §7.3): the chunk must be an AllowSharedBufferSource (else a TypeError);
 * its bytes are decoded at once (a copy in effect: the chunk's buffer may change afterwards), and the string of
 * every character they complete is enqueued unless it is empty. An error in fatal mode is the decoder's
 * TypeError, which errors the stream.
 */
function decodeAndEnqueue(this: DecoderState, chunk: unknown): void {
  const bytes = allowSharedBufferSourceBytes(chunk);
  const output = this.whole ? decodeWhole(this, bytes) : decodeStream(this.decoder, bytes);
  if (output !== "") TransformStreamEnqueue(this.stream, output);
}

/**
 * FP-DECODE-WHOLE: UTF-8 decoded up to the last character boundary without streaming; the bytes of a character
 * the chunk cuts are kept for the next chunk, which first decodes that character with as many of its own bytes as
 * it takes (the character ends there, or an error ends it before a byte that does not continue it). What a
 * streaming decode enqueues is the same: every decode stops where the UTF-8 decoder needs no more bytes, so
 * flushing there adds nothing, and the next decode starts from where a streaming decoder would stand. "BOM seen"
 * is the decoder used: the stream's own (which skips a BOM unless `ignoreBOM`) until the first bytes are decoded,
 * for they decode to at least one scalar value; one that ignores BOMs afterwards.
 */
function decodeWhole(state: DecoderState, chunk: Uint8Array): string {
  let bytes = chunk;
  let length = bytesLength(chunk);
  let first = "";
  const unfinished = state.unfinished;
  if (unfinished !== undefined) {
    // The character the last chunk cut, with the bytes of this chunk it takes (at most three).
    const kept = bytesLength(unfinished);
    const taken = length < 3 ? length : 3;
    const joined = concatBytes(unfinished, taken === length ? chunk : bytesSubarray(chunk, 0, taken));
    const end = utf8SequenceEnd(joined, kept + taken);
    if (end < 0) {
      state.unfinished = joined; // (this chunk was shorter than the character's missing bytes)
      return "";
    }
    state.unfinished = undefined;
    first = decodeFirst(state, end === kept + taken ? joined : bytesSubarray(joined, 0, end));
    const used = end - kept;
    if (used !== 0) {
      bytes = bytesSubarray(chunk, used, length);
      length -= used;
    }
  }
  const end = utf8UnfinishedStart(bytes, length);
  if (end !== length) state.unfinished = bytesSliceFrom(bytes, end);
  if (end === 0) return first;
  const output = decodeFirst(state, end === length ? bytes : bytesSubarray(bytes, 0, end));
  return first === "" ? output : first + output;
}

/** Decodes whole characters (FP-DECODE-WHOLE); after the first, with a decoder that ignores BOMs. */
function decodeFirst(state: DecoderState, bytes: Uint8Array): string {
  const rest = state.rest;
  if (rest !== undefined) return decodeEnd(rest, bytes);
  const output = decodeEnd(state.decoder, bytes);
  state.rest = state.ignoreBOM ? state.decoder : newTextDecoder("utf-8", state.fatal, true);
  return output;
}

/**
 * "Flush and enqueue" (Encoding §7.3): the end of the queue; bytes of an unfinished character are an error
 * (U+FFFD, or a TypeError in fatal mode).
 */
function decodeFlush(this: DecoderState): void {
  let output: string;
  if (this.whole) {
    const unfinished = this.unfinished;
    if (unfinished === undefined) return;
    this.unfinished = undefined;
    output = decodeEnd(this.rest ?? this.decoder, unfinished);
  } else {
    output = decodeEnd(this.decoder, undefined);
  }
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
    const encoding = textDecoderEncoding(decoder);
    const state = new DecoderState(decoder, DECODE_WHOLE && encoding === "utf-8", fatal, ignoreBOM);
    const transform = SetUpTransformStream<DecoderState, AllowSharedBufferSource, string>(
      state,
      decodeAndEnqueue,
      decodeFlush,
    );
    state.stream = transform.stream;
    this.#encoding = encoding;
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
