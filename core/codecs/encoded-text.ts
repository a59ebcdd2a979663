/**
 * FP-ENCODE-INTO: the bytes of a TextEncoderStream's readable side read whole by one of our consumers, made
 * without a chunk per string: the encoder hands each string to {@link collectEncodedText}'s buffer, which
 * `TextEncoder.encodeInto()` fills in place (core/README.md has the row and its measurement).
 * @module
 */
import { NativeUint8Array, ReflectApply } from "../shared/primordials.ts";
import { takeEncoderText } from "./text-encoder-stream.ts";
import { bytesSubarray, utf8EncodeInto } from "./text-natives.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";

const setMethod = Uint8Array.prototype.set;
const sliceMethod = Uint8Array.prototype.slice;

/** The size of a buffer's first allocation, made at its first string. */
const FIRST_BYTES = 16 * 1024;
const EMPTY: Uint8Array<ArrayBuffer> = new NativeUint8Array(0);

/** A growing buffer of UTF-8, written by `encodeInto()`; nothing is allocated before the first string. */
class Utf8Buffer {
  #bytes: Uint8Array<ArrayBuffer> = EMPTY;
  #length = 0;

  /** Appends `input`'s UTF-8 (a lone surrogate as U+FFFD, as `encode()`). */
  append(input: string): void {
    const most = input.length * 3;
    if (this.#length + most > this.#bytes.length) {
      let size = this.#bytes.length === 0 ? FIRST_BYTES : this.#bytes.length * 2;
      while (size < this.#length + most) size *= 2;
      const grown = new NativeUint8Array(size);
      ReflectApply(setMethod, grown, [bytesSubarray(this.#bytes, 0, this.#length)]);
      this.#bytes = grown;
    }
    this.#length += utf8EncodeInto(input, bytesSubarray(this.#bytes, this.#length, this.#bytes.length));
  }

  /** The bytes appended, in a new Uint8Array over an ArrayBuffer of exactly their length. */
  take(): Uint8Array<ArrayBuffer> {
    return ReflectApply(sliceMethod, this.#bytes, [0, this.#length]) as Uint8Array<ArrayBuffer>;
  }
}

/** A TextEncoderStream's readable side taken by {@link takeEncodedText}. */
export interface TakenEncodedText {
  /** Every byte its encoder makes from the take on, once it closes; rejects with its error when it errors. */
  readonly bytes: Promise<Uint8Array<ArrayBuffer>>;
  /** Cancels the stream with `reason` (through the reader that holds it); the stream's cancel promise. */
  cancel(reason: unknown): Promise<void>;
  /** Unlocks the stream (for a consumer that lets go of a stream it read, as a pipe does), once `bytes` settled. */
  release(): void;
}

/**
 * When `stream` is the readable side of one of our TextEncoderStreams that nothing has read or locked and that
 * holds no chunk: locks it (for good, as a body consumer leaves a body, unless released) and collects all the
 * bytes its encoder makes from then on, in one Uint8Array over an ArrayBuffer of exactly their length.
 * Undefined for any other stream (nothing is changed then).
 */
export function takeEncodedText(stream: unknown): TakenEncodedText | undefined {
  const buffer = new Utf8Buffer();
  if (!takeEncoderText(stream, (input) => buffer.append(input))) return undefined;
  const reader = (stream as ReadableStream<unknown>).getReader();
  const bytes = reader.read().then((result) => {
    // The encoder enqueues nothing once its text is taken: the first read is the end.
    if (!result.done) throw new TypeError("A TextEncoderStream gave a chunk after its text was taken");
    return buffer.take();
  });
  return { bytes, cancel: (reason) => reader.cancel(reason), release: () => reader.releaseLock() };
}

/** {@link takeEncodedText}'s bytes: a promise of them for such a stream, else undefined. */
export function collectEncodedText(stream: unknown): Promise<Uint8Array<ArrayBuffer>> | undefined {
  return takeEncodedText(stream)?.bytes;
}
