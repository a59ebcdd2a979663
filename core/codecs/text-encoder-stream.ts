/**
 * `TextEncoderStream` (Encoding §7.4): strings in, UTF-8 bytes out. Its [[transform]] is one of our
 * TransformStreams (set up as another specification sets one up), so a pipe chain through it fuses like any
 * other chain of ours.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { NativeUint8Array } from "../shared/primordials.ts";
import { convertDOMString, typeError } from "../shared/webidl.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";
import type { WritableStream } from "../writable/writable-stream.ts";
import {
  SetUpTransformStream,
  TransformStreamEnqueue,
  type TransformStreamHandle,
} from "../transform/transform-stream.ts";
import { utf8Encode } from "./text-natives.ts";
import { noteOwnBytes } from "../shared/own-bytes.ts";
import { lendEncoded } from "../shared/lent-bytes.ts";
import { untouchedTransformReadable } from "../transform/untouched-readable.ts";

/** A TextEncoderStream's encoder state: its transform and its [[leading surrogate]] ("" for null). */
class EncoderState {
  stream!: TransformStreamHandle;
  leadingSurrogate = "";
  /** FP-ENCODE-INTO: set once the readable side's only reader takes the text itself (see takeEncoderText). */
  sink: ((input: string) => void) | undefined = undefined;
}

/**
 * "Encode and enqueue a chunk" (Encoding §7.4). The chunk is converted to a DOMString (ToString: a throwing
 * `toString()` or a Symbol errors the stream). A leading surrogate at the end of the input is held for the next
 * chunk; the one held from the last chunk goes in front of this one, so that "convert code unit to scalar
 * value" pairs it with a trailing surrogate there, and the UTF-8 encoder turns any other lone surrogate into
 * U+FFFD. Nothing is enqueued when there are no bytes.
 */
function encodeAndEnqueue(this: EncoderState, chunk: unknown): void {
  let input = typeof chunk === "string" ? chunk : convertDOMString(chunk);
  if (this.leadingSurrogate !== "") {
    input = this.leadingSurrogate + input;
    this.leadingSurrogate = "";
  }
  const last = input.length - 1;
  if (last < 0) return;
  const unit = input.charCodeAt(last);
  if (unit >= 0xd800 && unit <= 0xdbff) {
    this.leadingSurrogate = input.slice(last);
    if (last === 0) return;
    input = input.slice(0, last);
  }
  if (this.sink !== undefined) {
    this.sink(input);
    return;
  }
  // FP-ENCODE-LEND: into a codec through a pipe of ours, the UTF-8 is lent from a shared pool.
  const lent = lendEncoded(this.stream, input);
  if (lent !== undefined) {
    TransformStreamEnqueue(this.stream, lent);
    return;
  }
  // OWN-BYTES: the chunk is noted, so a CompressionStream next in the chain need not read its buffer.
  TransformStreamEnqueue(this.stream, noteOwnBytes(utf8Encode(input)));
}

/** "Encode and flush" (Encoding §7.4): a leading surrogate still held becomes U+FFFD (EF BF BD). */
function encodeFlush(this: EncoderState): void {
  if (this.leadingSurrogate === "") return;
  this.leadingSurrogate = "";
  if (this.sink !== undefined) {
    this.sink("\ufffd");
    return;
  }
  const replacement = new NativeUint8Array(3);
  replacement[0] = 0xef;
  replacement[1] = 0xbf;
  replacement[2] = 0xbd;
  TransformStreamEnqueue(this.stream, replacement);
}

let isTextEncoderStream: (x: unknown) => boolean;

function illegal(): TypeError {
  return typeError("Illegal invocation: not a TextEncoderStream");
}

/** The class behind the public `TextEncoderStream` constant (core/api/text-codecs.ts). */
export class TextEncoderStream {
  #readable: ReadableStream<Uint8Array<ArrayBuffer>>;
  #writable: WritableStream<string>;

  /** A TextEncoderStream: strings written to `writable` come out of `readable` as UTF-8 bytes. */
  constructor() {
    const state = new EncoderState();
    const transform = SetUpTransformStream<EncoderState, string, Uint8Array<ArrayBuffer>>(
      state,
      encodeAndEnqueue,
      encodeFlush,
    );
    state.stream = transform.stream;
    this.#readable = transform.readable;
    this.#writable = transform.writable;
  }

  static {
    isTextEncoderStream = (x) => typeof x === "object" && x !== null && #readable in x;
  }

  /** Always `"utf-8"`. */
  get encoding(): string {
    if (!isTextEncoderStream(this)) throw illegal();
    return "utf-8";
  }

  /** The readable side: `Uint8Array` chunks of UTF-8. */
  get readable(): ReadableStream<Uint8Array<ArrayBuffer>> {
    if (!isTextEncoderStream(this)) throw illegal();
    return this.#readable;
  }

  /** The writable side: strings (any other chunk is converted to one as `` `${chunk}` `` converts it: ToString). */
  get writable(): WritableStream<string> {
    if (!isTextEncoderStream(this)) throw illegal();
    return this.#writable;
  }
}
defineInterface(TextEncoderStream, "TextEncoderStream");

/**
 * FP-ENCODE-INTO: when `readable` is the readable side of one of our TextEncoderStreams that nothing has read or
 * locked and that holds no chunk, hands every string its encoder would encode from now on to `sink` instead of
 * enqueuing its UTF-8 as a chunk, and returns true (the readable side then only closes or errors); otherwise
 * returns false and changes nothing. For a consumer that locks `readable` at once, before any user code runs, and
 * wants only its bytes joined: no chunk it would have seen is made.
 */
export function takeEncoderText(readable: unknown, sink: (input: string) => void): boolean {
  // The encoder is found through the transform behind the readable side, not a WeakMap keyed by it: V8 keeps a
  // WeakMap's young keys and values alive through every minor GC (bench/README.md, "Steady state and the young
  // generation").
  const transform = untouchedTransformReadable(readable, encodeAndEnqueue);
  if (transform === undefined) return false;
  const state = transform.transformer as EncoderState;
  if (state.sink !== undefined) return false;
  state.sink = sink;
  return true;
}
