/**
 * ReadableStream (Streams §4.2).
 * @module
 */
import { isAbortSignal } from "../shared/abort-signal.ts";
import { defineInterface } from "../shared/interface.ts";
import { type Callable, ObjectDefineProperty, PromiseReject, SymbolAsyncIterator } from "../shared/primordials.ts";
import { setPromiseIsHandledToTrue } from "../shared/promise.ts";
import {
  convertBoolean,
  convertCallback,
  convertDictionary,
  convertDOMString,
  convertEnforceRangeULongLong,
  isObject,
  rangeError,
  typeError,
} from "../shared/webidl.ts";
import { convertQueuingStrategy, ExtractHighWaterMark, ExtractSizeAlgorithm } from "../strategies/extract.ts";
import type {
  QueuingStrategy,
  ReadableStreamGetReaderOptions,
  ReadableStreamIteratorOptions,
  StreamPipeOptions,
  UnderlyingByteSource,
  UnderlyingDefaultSource,
  UnderlyingSource,
} from "../types.ts";
import { IsWritableStreamLocked } from "../writable/stream-internal.ts";
import { writableStreamInternal } from "../writable/writable-stream.ts";
import type {
  ReadableStream as PublicReadableStream,
  ReadableStreamAsyncIterator,
  ReadableWritablePair,
} from "../api/readable.ts";
import type { WritableStream } from "../api/writable.ts";
import { CreateReadableStreamAsyncIterator } from "./async-iterator.ts";
import { registerReadableStreamBrand } from "./brand.ts";
import { SetUpReadableByteStreamControllerFromUnderlyingSource } from "./byte-controller.ts";
import { ReadableByteStreamTee } from "./byte-tee.ts";
import { ReadableStreamBYOBReader } from "./byob-reader.ts";
import { SetUpReadableStreamDefaultControllerFromUnderlyingSource } from "./default-controller.ts";
import { ReadableStreamDefaultReader } from "./default-reader.ts";
import { ReadableStreamFromIterable } from "./from.ts";
import { type ReadableSourceTypeMaker, readableSourceTypes } from "./source-types.ts";
import { ReadableStreamPipeTo } from "./pipe-to.ts";
import {
  isNativeReadableStream,
  isNativeWritableStream,
  isNativeWritableStreamLocked,
  ReadableStreamPipeToNative,
} from "./pipe-to-foreign.ts";
import { AcquireReadableStreamDefaultReader } from "./reader-ops.ts";
import { IsReadableStreamLocked, ReadableStreamCancel, type ReadableStreamInternal } from "./stream-internal.ts";
import { ReadableStreamDefaultTee } from "./tee.ts";

/**
 * The source's `type`: true for "bytes", false when absent, a registered maker for a runtime's own type (or for
 * "bytes", where a runtime's patch leaves byte streams to the runtime's own class: Bun's).
 */
function convertReadableStreamType(t: unknown): boolean | ReadableSourceTypeMaker {
  if (t === undefined) return false;
  const str = convertDOMString(t);
  const maker = readableSourceTypes[str];
  if (maker !== undefined) return maker;
  if (str === "bytes") return true;
  throw typeError(`'${str}' is not a valid ReadableStreamType; the only valid type is 'bytes'`);
}

function convertPipeOptions(
  options: unknown,
): { preventAbort: boolean; preventCancel: boolean; preventClose: boolean; signal: AbortSignal | undefined } {
  const dict = convertDictionary(options, "options");
  if (dict === undefined) return { preventAbort: false, preventCancel: false, preventClose: false, signal: undefined };
  const preventAbort = convertBoolean(dict.preventAbort);
  const preventCancel = convertBoolean(dict.preventCancel);
  const preventClose = convertBoolean(dict.preventClose);
  const signal = dict.signal;
  if (signal !== undefined && !isAbortSignal(signal)) throw typeError("options.signal must be an AbortSignal");
  return { preventAbort, preventCancel, preventClose, signal: signal as AbortSignal | undefined };
}

let getStream: (x: unknown) => ReadableStreamInternal | undefined;
let wrap: <T>(s: ReadableStreamInternal) => ReadableStream<T>;
let rehome: (x: ReadableStream<unknown>, s: ReadableStreamInternal) => void;
const kWrap = Symbol();

function illegal(): TypeError {
  return typeError("Illegal invocation: not a ReadableStream");
}

/** A source of data that can be read, piped and teed (§4.2). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class ReadableStream<R = any> {
  #s!: ReadableStreamInternal;

  /**
   * Creates a ReadableStream from an underlying source (`type: "bytes"` for a readable byte stream)
   * and a queuing strategy.
   */
  constructor(underlyingSource: UnderlyingByteSource, strategy?: { highWaterMark?: number });
  constructor(underlyingSource: UnderlyingDefaultSource<R>, strategy?: QueuingStrategy<R>);
  constructor(underlyingSource?: UnderlyingSource<R>, strategy?: QueuingStrategy<R>);
  constructor(
    underlyingSource: UnderlyingDefaultSource<R> | UnderlyingByteSource | UnderlyingSource<R> | undefined = undefined,
    strategy: QueuingStrategy<R> | undefined = undefined,
  ) {
    if ((underlyingSource as unknown) === kWrap) {
      this.#s = strategy as unknown as ReadableStreamInternal;
      return;
    }
    if (underlyingSource !== undefined && !isObject(underlyingSource)) {
      throw typeError("The underlying source must be an object");
    }
    const strategyRecord = convertQueuingStrategy(strategy, "strategy");
    // The UnderlyingSource dictionary, members read in lexicographic order (into locals: no record per stream).
    let autoAllocateChunkSize: number | undefined;
    let cancelFn: Callable | undefined;
    let pullFn: Callable | undefined;
    let startFn: Callable | undefined;
    let bytes: boolean | ReadableSourceTypeMaker = false;
    if (underlyingSource !== undefined) {
      const s = underlyingSource as Record<string, unknown>;
      const aacs = s.autoAllocateChunkSize;
      if (aacs !== undefined) autoAllocateChunkSize = convertEnforceRangeULongLong(aacs, "autoAllocateChunkSize");
      const cancel = s.cancel;
      if (cancel !== undefined) cancelFn = convertCallback(cancel, "underlyingSource.cancel");
      const pull = s.pull;
      if (pull !== undefined) pullFn = convertCallback(pull, "underlyingSource.pull");
      const start = s.start;
      if (start !== undefined) startFn = convertCallback(start, "underlyingSource.start");
      bytes = convertReadableStreamType(s.type);
      // A runtime's own source type (registered by its adapter's patch): the runtime makes the stream.
      if (typeof bytes === "function") return bytes(underlyingSource, strategy) as this;
    }
    if (bytes) {
      if (strategyRecord.size !== undefined) {
        throw rangeError("The strategy for a byte stream cannot have a size function");
      }
      const hwm = ExtractHighWaterMark(strategyRecord, 0);
      this.#s = SetUpReadableByteStreamControllerFromUnderlyingSource(
        underlyingSource,
        cancelFn,
        pullFn,
        startFn,
        hwm,
        autoAllocateChunkSize,
      );
    } else {
      const sizeAlgorithm = ExtractSizeAlgorithm(strategyRecord);
      const hwm = ExtractHighWaterMark(strategyRecord, 1);
      this.#s = SetUpReadableStreamDefaultControllerFromUnderlyingSource(
        underlyingSource,
        cancelFn,
        pullFn,
        startFn,
        hwm,
        sizeAlgorithm,
      );
    }
  }

  static {
    getStream = (x) => (typeof x === "object" && x !== null && #s in x ? (x as ReadableStream).#s : undefined);
    wrap = <T>(s: ReadableStreamInternal) =>
      new ReadableStream<T>(kWrap as unknown as UnderlyingDefaultSource<T>, s as unknown as QueuingStrategy<T>);
    rehome = (x, s) => {
      x.#s = s;
    };
    registerReadableStreamBrand(getStream);
  }

  /**
   * Creates a ReadableStream that yields the values of an async iterable or iterable object. A string throws a
   * TypeError, as the standard has it since 2026 (its argument is a Web IDL `async_sequence`): pass `[text]`
   * for one chunk, or `[...text]` for one chunk per code point.
   */
  static from<R>(asyncIterable: Iterable<R> | AsyncIterable<R>): ReadableStream<R> {
    return wrap<R>(ReadableStreamFromIterable(asyncIterable));
  }

  /** Whether the stream is locked to a reader. */
  get locked(): boolean {
    const s = getStream(this);
    if (s === undefined) throw illegal();
    return IsReadableStreamLocked(s);
  }

  /** Cancels the stream. */
  cancel(reason: unknown = undefined): Promise<undefined> {
    const s = getStream(this);
    if (s === undefined) return PromiseReject(illegal());
    if (IsReadableStreamLocked(s)) return PromiseReject(typeError("Cannot cancel a stream that is locked to a reader"));
    return ReadableStreamCancel(s, reason);
  }

  /** Locks the stream and returns a default reader, or a BYOB reader with `{ mode: "byob" }`. */
  getReader(options: { mode: "byob" }): ReadableStreamBYOBReader;
  getReader(): ReadableStreamDefaultReader<R>;
  getReader(options?: ReadableStreamGetReaderOptions): ReadableStreamDefaultReader<R> | ReadableStreamBYOBReader;
  getReader(
    options: ReadableStreamGetReaderOptions | undefined = undefined,
  ): ReadableStreamDefaultReader<R> | ReadableStreamBYOBReader {
    if (getStream(this) === undefined) throw illegal();
    const dict = convertDictionary(options, "options");
    const mode = dict === undefined ? undefined : dict.mode;
    // The class is the implementation of the global interface the readers take (tests/types/conformance.ts).
    if (mode === undefined) return new ReadableStreamDefaultReader<R>(this as unknown as PublicReadableStream<R>);
    const str = convertDOMString(mode);
    if (str !== "byob") {
      throw typeError(`'${str}' is not a valid ReadableStreamReaderMode; the only valid mode is 'byob'`);
    }
    return new ReadableStreamBYOBReader(this as unknown as PublicReadableStream<Uint8Array<ArrayBuffer>>);
  }

  /** Pipes this stream through a transform (a writable/readable pair) and returns its readable side. */
  pipeThrough<T>(
    transform: ReadableWritablePair<T, R>,
    options: StreamPipeOptions | undefined = undefined,
  ): ReadableStream<T> {
    const s = getStream(this);
    if (s === undefined) throw illegal();
    const pair = convertDictionary(transform, "transform");
    if (pair === undefined) throw typeError("transform must be an object with readable and writable members");
    const readable = pair.readable;
    // Our streams, or the runtime's own (interop: a native CompressionStream in a chain).
    if (getStream(readable) === undefined && !isNativeReadableStream(readable)) {
      throw typeError("transform.readable must be a ReadableStream");
    }
    const writable = pair.writable;
    const writableInternal = writableStreamInternal(writable);
    const nativeWritable = writableInternal === undefined && isNativeWritableStream(writable);
    if (writableInternal === undefined && !nativeWritable) {
      throw typeError("transform.writable must be a WritableStream");
    }
    const opts = convertPipeOptions(options);
    if (IsReadableStreamLocked(s)) throw typeError("Cannot pipe a stream that is locked to a reader");
    if (nativeWritable ? isNativeWritableStreamLocked(writable) : IsWritableStreamLocked(writableInternal!)) {
      throw typeError("Cannot pipe to a stream that is locked to a writer");
    }
    if (nativeWritable) {
      const promise = ReadableStreamPipeToNative(
        s,
        writable as never,
        opts.preventClose,
        opts.preventAbort,
        opts.preventCancel,
        opts.signal,
      );
      setPromiseIsHandledToTrue(promise);
    } else {
      // The pipe's promise is marked handled and dropped: none is made (FP-LAZY).
      ReadableStreamPipeTo(
        s,
        writableInternal!,
        opts.preventClose,
        opts.preventAbort,
        opts.preventCancel,
        opts.signal,
        false,
      );
    }
    return readable as ReadableStream<T>;
  }

  /** Pipes this stream to a WritableStream; fulfills when piping completes. */
  pipeTo(destination: WritableStream<R>, options: StreamPipeOptions | undefined = undefined): Promise<undefined> {
    const s = getStream(this);
    if (s === undefined) return PromiseReject(illegal());
    const dest = writableStreamInternal(destination);
    const nativeDest = dest === undefined && isNativeWritableStream(destination);
    if (dest === undefined && !nativeDest) return PromiseReject(typeError("The destination must be a WritableStream"));
    let opts;
    try {
      opts = convertPipeOptions(options);
    } catch (e) {
      return PromiseReject(e);
    }
    if (IsReadableStreamLocked(s)) return PromiseReject(typeError("Cannot pipe a stream that is locked to a reader"));
    if (nativeDest ? isNativeWritableStreamLocked(destination) : IsWritableStreamLocked(dest!)) {
      return PromiseReject(typeError("Cannot pipe to a stream that is locked to a writer"));
    }
    if (nativeDest) {
      // Interop: the runtime's own WritableStream, driven through its writer.
      return ReadableStreamPipeToNative(
        s,
        destination as never,
        opts.preventClose,
        opts.preventAbort,
        opts.preventCancel,
        opts.signal,
      );
    }
    return ReadableStreamPipeTo(s, dest!, opts.preventClose, opts.preventAbort, opts.preventCancel, opts.signal)!;
  }

  /** Splits the stream into two branches that each receive every chunk. */
  tee(): [ReadableStream<R>, ReadableStream<R>] {
    const s = getStream(this);
    if (s === undefined) throw illegal();
    // Indexed reads, not `const [a, b] = ...`: destructuring goes through the (patchable) array iterator.
    const branches = s.isByte ? ReadableByteStreamTee(s) : ReadableStreamDefaultTee(s);
    return [wrap<R>(branches[0]), wrap<R>(branches[1])];
  }

  /** Returns an async iterator over the stream's chunks. */
  values(options: ReadableStreamIteratorOptions | undefined = undefined): ReadableStreamAsyncIterator<R> {
    const s = getStream(this);
    if (s === undefined) throw illegal();
    const dict = convertDictionary(options, "options");
    const preventCancel = dict === undefined ? false : convertBoolean(dict.preventCancel);
    const reader = AcquireReadableStreamDefaultReader(s);
    return CreateReadableStreamAsyncIterator(reader, preventCancel) as unknown as ReadableStreamAsyncIterator<R>;
  }

  declare [Symbol.asyncIterator]: (options?: ReadableStreamIteratorOptions) => ReadableStreamAsyncIterator<R>;
}
defineInterface(ReadableStream, "ReadableStream");
ObjectDefineProperty(ReadableStream.prototype, SymbolAsyncIterator, {
  value: ReadableStream.prototype.values,
  writable: true,
  enumerable: false,
  configurable: true,
});

/** Wraps an internal readable stream in the public class. */
export function wrapReadableStream<T>(s: ReadableStreamInternal): ReadableStream<T> {
  return wrap<T>(s);
}

/**
 * Fetch's "clone a body" for an owner that keeps the stream object (runtime adapters, where a runtime's
 * Response holds one of our streams and cannot tee it itself): tees `stream` (ReadableStreamTee, §4.9.1),
 * then `stream` itself goes on as the first branch; returns the second, and whether `stream` is a byte
 * stream (the byte tee gives the second branch copies of the chunks; for a default stream a caller that
 * must clone the second branch's chunks, as fetch does, does so itself). `stream` must be unlocked; it
 * stays unlocked and undisturbed.
 */
export function ReadableStreamTeeInPlace<R>(
  stream: PublicReadableStream<R>,
): [second: PublicReadableStream<R>, bytes: boolean] {
  const s = getStream(stream);
  if (s === undefined) throw illegal();
  if (IsReadableStreamLocked(s)) throw typeError("Cannot tee a stream that is locked to a reader");
  const isByte = s.isByte;
  const branches = isByte ? ReadableByteStreamTee(s) : ReadableStreamDefaultTee(s);
  // getStream() found our #s: `stream` is this class (its public type is the global interface).
  rehome(stream as unknown as ReadableStream<unknown>, branches[0]);
  return [wrap<R>(branches[1]) as unknown as PublicReadableStream<R>, isByte];
}

/** The internal state of a public ReadableStream, or undefined. */
export function readableStreamInternal(x: unknown): ReadableStreamInternal | undefined {
  return getStream(x);
}
