/**
 * A growing buffer of bytes for a consumer that joins a stream's output as it is made (FP-ENCODE-INTO,
 * FP-CODEC-INTO): producers write into it, with `encodeInto()` or a copy, instead of making a chunk each time.
 * Nothing is allocated before the first write; the buffer doubles as it fills.
 * @module
 */
import { NativeUint8Array, ReflectApply } from "./primordials.ts";

const setMethod = Uint8Array.prototype.set;
const sliceMethod = Uint8Array.prototype.slice;
const subarrayMethod = Uint8Array.prototype.subarray;

/** The size of a buffer's first allocation. */
const FIRST_BYTES = 16 * 1024;
const EMPTY: Uint8Array<ArrayBuffer> = new NativeUint8Array(0);

function view(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return ReflectApply(subarrayMethod, bytes, [start, end]) as Uint8Array;
}

/** Bytes appended one write after another; {@link ByteBuilder.take} gives them in one new buffer. */
export class ByteBuilder {
  #bytes: Uint8Array<ArrayBuffer> = EMPTY;
  #length = 0;

  /**
   * A view of at least `most` free bytes after those written so far, for a producer that writes into it and then
   * calls {@link ByteBuilder.advance} with how many it wrote.
   */
  room(most: number): Uint8Array {
    const needed = this.#length + most;
    if (needed > this.#bytes.length) {
      let size = this.#bytes.length === 0 ? FIRST_BYTES : this.#bytes.length * 2;
      while (size < needed) size *= 2;
      const grown = new NativeUint8Array(size);
      if (this.#length !== 0) ReflectApply(setMethod, grown, [view(this.#bytes, 0, this.#length)]);
      this.#bytes = grown;
    }
    return view(this.#bytes, this.#length, this.#bytes.length);
  }

  /** Counts `written` bytes the producer wrote into the last {@link ByteBuilder.room}. */
  advance(written: number): void {
    this.#length += written;
  }

  /** Appends a copy of the first `length` bytes of `from`. */
  append(from: Uint8Array, length: number): void {
    const room = this.room(length);
    ReflectApply(setMethod, room, [view(from, 0, length)]);
    this.#length += length;
  }

  /** Every byte appended, in a new Uint8Array over an ArrayBuffer of exactly their length. */
  take(): Uint8Array<ArrayBuffer> {
    return ReflectApply(sliceMethod, this.#bytes, [0, this.#length]) as Uint8Array<ArrayBuffer>;
  }
}
