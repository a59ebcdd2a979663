// deno-lint-ignore-file no-explicit-any -- the generic defaults and callback types are lib.dom's (`any`)
/**
 * Public dictionary and callback types of the Streams Standard (and the options of the Encoding Standard's
 * TextDecoderStream). Their shapes and generic defaults are the
 * ones the runtimes' declarations use (lib.dom, @types/node), so a dictionary typed for the global classes
 * is accepted by fusestreams' constructors and the other way round.
 * @module
 */
import type {
  ReadableByteStreamController,
  ReadableStreamController,
  ReadableStreamDefaultController,
} from "./api/readable-controllers.ts";
import type { TransformStreamDefaultController } from "./api/transform.ts";
import type { WritableStreamDefaultController } from "./api/writable.ts";

/** The size function of a queuing strategy: how much a chunk counts against the high-water mark. */
export interface QueuingStrategySize<T = any> {
  /** Returns the size of `chunk` (a finite number ≥ 0). */
  (chunk: T): number;
}

/** A queuing strategy: a high-water mark and an optional chunk size function. */
export interface QueuingStrategy<T = any> {
  /** How much may be queued before backpressure (default 1 chunk; 0 for a TransformStream's readable side). */
  highWaterMark?: number;
  /** The size of a chunk (default: every chunk counts 1). */
  size?: QueuingStrategySize<T>;
}

/** The argument of the built-in queuing strategies' constructors. */
export interface QueuingStrategyInit {
  /** The high-water mark of the strategy. */
  highWaterMark: number;
}

/** An underlying source for a default ReadableStream. */
export interface UnderlyingDefaultSource<R = any> {
  /** Called once, at construction; the stream waits for the promise it returns, if any, before pulling. */
  start?: (controller: ReadableStreamDefaultController<R>) => any;
  /** Called whenever the stream wants more chunks; it is not called again until a returned promise settles. */
  pull?: (controller: ReadableStreamDefaultController<R>) => void | PromiseLike<void>;
  /** Called when the consumer cancels the stream. */
  cancel?: (reason?: any) => void | PromiseLike<void>;
  /** Absent (or `undefined`) for a default stream. */
  type?: undefined;
}

/** An underlying source for a readable byte stream. */
export interface UnderlyingByteSource {
  /** Called once, at construction; the stream waits for the promise it returns, if any, before pulling. */
  start?: (controller: ReadableByteStreamController) => any;
  /** Called whenever the stream wants more bytes (and for each BYOB read it cannot fill from its queue). */
  pull?: (controller: ReadableByteStreamController) => void | PromiseLike<void>;
  /** Called when the consumer cancels the stream. */
  cancel?: (reason?: any) => void | PromiseLike<void>;
  /** `"bytes"`: a readable byte stream. */
  type: "bytes";
  /** With it, default readers get a BYOB request of this many bytes too, so `pull()` can always fill a view. */
  autoAllocateChunkSize?: number;
}

/** Any underlying source: a default source, or a byte source when `type` is `"bytes"`. */
export interface UnderlyingSource<R = any> {
  /** Called once, at construction. */
  start?: (controller: ReadableStreamController<R>) => any;
  /** Called whenever the stream wants more data. */
  pull?: (controller: ReadableStreamController<R>) => void | PromiseLike<void>;
  /** Called when the consumer cancels the stream. */
  cancel?: (reason?: any) => void | PromiseLike<void>;
  /** `"bytes"` for a readable byte stream. */
  type?: "bytes";
  /** Byte streams only: see {@link UnderlyingByteSource.autoAllocateChunkSize}. */
  autoAllocateChunkSize?: number;
}

/** An underlying sink for a WritableStream. */
export interface UnderlyingSink<W = any> {
  /** Called once, at construction; writes wait for the promise it returns, if any. */
  start?: (controller: WritableStreamDefaultController) => any;
  /** Called for each chunk, one at a time: the next write waits until a returned promise settles. */
  write?: (chunk: W, controller: WritableStreamDefaultController) => void | PromiseLike<void>;
  /** Called after the last write when the stream is closed. */
  close?: () => void | PromiseLike<void>;
  /** Called when the stream is aborted. */
  abort?: (reason?: any) => void | PromiseLike<void>;
  /** Reserved by the standard: must be absent. */
  type?: undefined;
}

/** A transformer for a TransformStream. */
export interface Transformer<I = any, O = any> {
  /** Called once, at construction. */
  start?: (controller: TransformStreamDefaultController<O>) => any;
  /** Called for each chunk written; enqueue the output with `controller.enqueue()`. Default: pass it through. */
  transform?: (chunk: I, controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>;
  /** Called after the last chunk when the writable side is closed. */
  flush?: (controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>;
  /** Called when the readable side is cancelled or the writable side aborted. */
  cancel?: (reason: any) => void | PromiseLike<void>;
  /** Reserved by the standard: must be absent. */
  readableType?: undefined;
  /** Reserved by the standard: must be absent. */
  writableType?: undefined;
}

/** Options of `pipeTo()` and `pipeThrough()`. */
export interface StreamPipeOptions {
  /** Do not abort the destination when the source errors. */
  preventAbort?: boolean;
  /** Do not cancel the source when the destination errors or closes. */
  preventCancel?: boolean;
  /** Do not close the destination when the source closes. */
  preventClose?: boolean;
  /** Aborting this signal stops the pipe (and aborts / cancels the ends unless prevented). */
  signal?: AbortSignal;
}

/** Options of `getReader()`. */
export interface ReadableStreamGetReaderOptions {
  /** `"byob"` for a BYOB reader (readable byte streams only). */
  mode?: "byob";
}

/** Options of `values()` and of the async iterator. */
export interface ReadableStreamIteratorOptions {
  /** Leaving the loop early does not cancel the stream (it only releases the lock). */
  preventCancel?: boolean;
}

/** Options of `ReadableStreamBYOBReader.read()`. */
export interface ReadableStreamBYOBReaderReadOptions {
  /** The minimum number of elements to read before the read fulfills (default 1). */
  min?: number;
}

/** Options of `TextDecoderStream` (Encoding §7.3), the same as `TextDecoder`'s. */
export interface TextDecoderOptions {
  /** A malformed byte sequence errors the stream with a TypeError instead of decoding to U+FFFD. */
  fatal?: boolean;
  /** A byte order mark at the start is kept in the output instead of being skipped. */
  ignoreBOM?: boolean;
}

/**
 * The interface object of a class user code cannot construct (the controllers, the BYOB request): there
 * for `instanceof` and its prototype; `new` throws a TypeError, since only the streams make them.
 */
export interface NonConstructibleInterface<T> {
  /** The prototype of every instance. */
  readonly prototype: T;
  /** Always throws a TypeError. */
  new (): T;
}
