/**
 * ReadableStreamBYOBReader (Streams §4.4).
 * @module
 */
import { foreignReaders } from "./source-types.ts";
import {
  arrayBufferByteLength,
  convertArrayBufferView,
  IsDetachedBuffer,
  typedArrayTag,
  viewBuffer,
  viewByteLength,
} from "../shared/buffers.ts";
import { defineInterface } from "../shared/interface.ts";
import { PromiseReject, ReflectApply } from "../shared/primordials.ts";
import { convertDictionary, convertEnforceRangeULongLong, rangeError, typeError } from "../shared/webidl.ts";
import { readableStreamInternalOrUndefined, toReadableStreamInternal } from "./brand.ts";
import { PromiseReadRequest, type ReadResult } from "./read-requests.ts";
import {
  AcquireReadableStreamBYOBReader,
  ReadableStreamBYOBReaderRead,
  ReadableStreamReaderGenericCancel,
  ReadableStreamReaderRelease,
} from "./reader-ops.ts";
import type { ReadableStreamBYOBReaderReadOptions } from "../types.ts";
import type { ReaderInternal } from "./stream-internal.ts";
import type { ReadableStream } from "../api/readable.ts";

let getReader: (x: unknown) => ReaderInternal | undefined;

function illegal(): TypeError {
  return typeError("Illegal invocation: not a ReadableStreamBYOBReader");
}

const TypedArrayLengthGetter = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  "length",
)!.get!;

/** A reader that reads bytes into buffers supplied by the consumer (§4.4). */
export class ReadableStreamBYOBReader {
  #r!: ReaderInternal;

  /** Locks the readable byte stream `stream`. Throws a TypeError if it is locked or not a byte stream. */
  constructor(stream: ReadableStream<Uint8Array<ArrayBuffer>>) {
    const s = readableStreamInternalOrUndefined(stream);
    if (s === undefined) {
      // A runtime's own stream, while its adapter's patch is on: the runtime's reader.
      const made = foreignReaders.make?.(stream as object, true);
      if (made !== undefined) return made as this;
    }
    this.#r = AcquireReadableStreamBYOBReader(s ?? toReadableStreamInternal(stream, "Argument 1"));
  }

  static {
    getReader = (
      x,
    ) => (typeof x === "object" && x !== null && #r in x ? (x as ReadableStreamBYOBReader).#r : undefined);
  }

  /** Fulfills when the stream closes, rejects when it errors or the lock is released. */
  get closed(): Promise<undefined> {
    const r = getReader(this);
    if (r === undefined) return PromiseReject(illegal());
    return r.closed!.promise;
  }

  /** Cancels the stream. */
  cancel(reason: unknown = undefined): Promise<undefined> {
    const r = getReader(this);
    if (r === undefined) return PromiseReject(illegal());
    if (r.stream === undefined) return PromiseReject(typeError("Cannot cancel a stream using a released reader"));
    return ReadableStreamReaderGenericCancel(r, reason);
  }

  /** Reads bytes into `view` (whose buffer is transferred) and fulfills with a view of what was read. */
  read<T extends ArrayBufferView<ArrayBuffer>>(
    view: T,
    options: ReadableStreamBYOBReaderReadOptions | undefined = undefined,
  ): Promise<ReadResult<T>> {
    const r = getReader(this);
    if (r === undefined) return PromiseReject(illegal());
    let v: ArrayBufferView;
    let min = 1;
    try {
      v = convertArrayBufferView(view, "view");
      const dict = convertDictionary(options, "options");
      if (dict !== undefined && dict.min !== undefined) min = convertEnforceRangeULongLong(dict.min, "options.min");
    } catch (e) {
      return PromiseReject(e);
    }
    if (viewByteLength(v) === 0) return PromiseReject(typeError("view must have non-zero byteLength"));
    const buffer = viewBuffer(v);
    if (arrayBufferByteLength(buffer) === 0) {
      return PromiseReject(typeError("view's buffer must have non-zero byteLength"));
    }
    if (IsDetachedBuffer(buffer)) return PromiseReject(typeError("view's buffer has been detached"));
    if (min === 0) return PromiseReject(typeError("options.min must be greater than 0"));
    if (typedArrayTag(v) !== undefined) {
      if (min > (ReflectApply(TypedArrayLengthGetter, v, []) as number)) {
        return PromiseReject(rangeError("options.min must be less than or equal to view's length"));
      }
    } else if (min > viewByteLength(v)) {
      return PromiseReject(rangeError("options.min must be less than or equal to view's byteLength"));
    }
    if (r.stream === undefined) return PromiseReject(typeError("Cannot read from a released reader"));
    const request = new PromiseReadRequest();
    const promise = request.arm();
    ReadableStreamBYOBReaderRead(r, v, min, request);
    return promise as Promise<ReadResult<T>>;
  }

  /** Releases the lock; pending reads reject with a TypeError. */
  releaseLock(): void {
    const r = getReader(this);
    if (r === undefined) throw illegal();
    if (r.stream === undefined) return;
    ReadableStreamReaderRelease(r);
  }
}
defineInterface(ReadableStreamBYOBReader, "ReadableStreamBYOBReader");
