/**
 * Public dictionary and callback types of the Streams Standard.
 * @module
 */

/** A queuing strategy: a high-water mark and an optional chunk size function. */
export interface QueuingStrategy<T = unknown> {
  highWaterMark?: number;
  size?: (chunk: T) => number;
}

/** The argument of the built-in queuing strategies' constructors. */
export interface QueuingStrategyInit {
  highWaterMark: number;
}

/** The controller types a ReadableStream hands to its underlying source. */
export interface ReadableStreamControllerLike<R> {
  readonly desiredSize: number | null;
  close(): void;
  enqueue(chunk: R): void;
  error(e?: unknown): void;
}

/** An underlying source for a default ReadableStream. */
export interface UnderlyingDefaultSource<R = unknown> {
  start?: (controller: ReadableStreamControllerLike<R>) => unknown;
  pull?: (controller: ReadableStreamControllerLike<R>) => void | PromiseLike<void>;
  cancel?: (reason?: unknown) => void | PromiseLike<void>;
  type?: undefined;
}

/** An underlying source for a readable byte stream. */
export interface UnderlyingByteSource {
  start?: (controller: import("./readable/byte-controller.ts").ReadableByteStreamController) => unknown;
  pull?: (controller: import("./readable/byte-controller.ts").ReadableByteStreamController) => void | PromiseLike<void>;
  cancel?: (reason?: unknown) => void | PromiseLike<void>;
  type: "bytes";
  autoAllocateChunkSize?: number;
}

/** Any underlying source. */
export type UnderlyingSource<R = unknown> = UnderlyingDefaultSource<R> | UnderlyingByteSource;

/** The controller a WritableStream hands to its underlying sink. */
export interface WritableStreamControllerLike {
  readonly signal: AbortSignal;
  error(e?: unknown): void;
}

/** An underlying sink for a WritableStream. */
export interface UnderlyingSink<W = unknown> {
  start?: (controller: WritableStreamControllerLike) => unknown;
  write?: (chunk: W, controller: WritableStreamControllerLike) => void | PromiseLike<void>;
  close?: () => void | PromiseLike<void>;
  abort?: (reason?: unknown) => void | PromiseLike<void>;
  type?: undefined;
}

/** The controller a TransformStream hands to its transformer. */
export interface TransformStreamControllerLike<O> {
  readonly desiredSize: number | null;
  enqueue(chunk?: O): void;
  error(reason?: unknown): void;
  terminate(): void;
}

/** A transformer for a TransformStream. */
export interface Transformer<I = unknown, O = unknown> {
  start?: (controller: TransformStreamControllerLike<O>) => unknown;
  transform?: (chunk: I, controller: TransformStreamControllerLike<O>) => void | PromiseLike<void>;
  flush?: (controller: TransformStreamControllerLike<O>) => void | PromiseLike<void>;
  cancel?: (reason?: unknown) => void | PromiseLike<void>;
  readableType?: undefined;
  writableType?: undefined;
}

/** Options of pipeTo() and pipeThrough(). */
export interface StreamPipeOptions {
  preventAbort?: boolean;
  preventCancel?: boolean;
  preventClose?: boolean;
  signal?: AbortSignal;
}

/** Options of getReader(). */
export interface ReadableStreamGetReaderOptions {
  mode?: "byob";
}

/** Options of values() / the async iterator. */
export interface ReadableStreamIteratorOptions {
  preventCancel?: boolean;
}
