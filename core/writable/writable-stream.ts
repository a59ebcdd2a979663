/**
 * WritableStream (Streams §5.2).
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { PromiseReject } from "../shared/primordials.ts";
import { isObject, typeError } from "../shared/webidl.ts";
import { convertQueuingStrategy, ExtractHighWaterMark, ExtractSizeAlgorithm } from "../strategies/extract.ts";
import type { WritableStream as PublicWritableStream } from "../api/writable.ts";
import type { QueuingStrategy, UnderlyingSink } from "../types.ts";
import { registerWritableStreamBrand } from "./brand.ts";
import { convertUnderlyingSink, SetUpWritableStreamDefaultControllerFromUnderlyingSink } from "./default-controller.ts";
import { WritableStreamDefaultWriter } from "./default-writer.ts";
import {
  IsWritableStreamLocked,
  WritableStreamAbort,
  WritableStreamClose,
  WritableStreamCloseQueuedOrInFlight,
  WritableStreamInternal,
} from "./stream-internal.ts";

let getStream: (x: unknown) => WritableStreamInternal | undefined;
let wrap: (s: WritableStreamInternal) => WritableStream;
const kWrap = Symbol();

/** A destination for data (§5.2). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class WritableStream<W = any> {
  #s: WritableStreamInternal;

  /** Creates a WritableStream over `underlyingSink` with the given queuing strategy. */
  constructor(
    underlyingSink: UnderlyingSink<W> | undefined = undefined,
    strategy: QueuingStrategy<W> | undefined = undefined,
  ) {
    if ((underlyingSink as unknown) === kWrap) {
      this.#s = strategy as unknown as WritableStreamInternal;
      return;
    }
    if (underlyingSink !== undefined && !isObject(underlyingSink)) {
      throw typeError("The underlying sink must be an object");
    }
    const strategyRecord = convertQueuingStrategy(strategy, "strategy");
    const stream = convertUnderlyingSink(underlyingSink);
    const sizeAlgorithm = ExtractSizeAlgorithm(strategyRecord);
    const hwm = ExtractHighWaterMark(strategyRecord, 1);
    SetUpWritableStreamDefaultControllerFromUnderlyingSink(stream, hwm, sizeAlgorithm);
    this.#s = stream;
  }

  static {
    getStream = (x) => (typeof x === "object" && x !== null && #s in x ? (x as WritableStream).#s : undefined);
    wrap = (s) => new WritableStream(kWrap as unknown as UnderlyingSink, s as unknown as QueuingStrategy);
    registerWritableStreamBrand(getStream);
  }

  /** Whether the stream is locked to a writer. */
  get locked(): boolean {
    const s = getStream(this);
    if (s === undefined) throw typeError("Illegal invocation: not a WritableStream");
    return IsWritableStreamLocked(s);
  }

  /** Aborts the stream, discarding queued chunks. */
  abort(reason: unknown = undefined): Promise<undefined> {
    const s = getStream(this);
    if (s === undefined) return PromiseReject(typeError("Illegal invocation: not a WritableStream"));
    if (IsWritableStreamLocked(s)) return PromiseReject(typeError("Cannot abort a stream that is locked to a writer"));
    return WritableStreamAbort(s, reason);
  }

  /** Closes the stream after queued chunks are written. */
  close(): Promise<undefined> {
    const s = getStream(this);
    if (s === undefined) return PromiseReject(typeError("Illegal invocation: not a WritableStream"));
    if (IsWritableStreamLocked(s)) return PromiseReject(typeError("Cannot close a stream that is locked to a writer"));
    if (WritableStreamCloseQueuedOrInFlight(s)) return PromiseReject(typeError("The stream is already closing"));
    return WritableStreamClose(s);
  }

  /** Locks the stream and returns a writer. */
  getWriter(): WritableStreamDefaultWriter<W> {
    if (getStream(this) === undefined) throw typeError("Illegal invocation: not a WritableStream");
    // The class is the implementation of the global interface the writer takes (tests/types/conformance.ts).
    return new WritableStreamDefaultWriter(this as unknown as PublicWritableStream<W>);
  }
}
defineInterface(WritableStream, "WritableStream");

/** Wraps an internal writable stream in the public class. */
export function wrapWritableStream(s: WritableStreamInternal): WritableStream {
  return wrap(s);
}

/** The internal state of a public WritableStream, or undefined. */
export function writableStreamInternal(x: unknown): WritableStreamInternal | undefined {
  return getStream(x);
}
