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

import type { ReadableByteStreamController } from "./readable/byte-controller.ts";
import type { ReadableStreamDefaultController } from "./readable/default-controller.ts";
import type { TransformStreamDefaultController } from "./transform/transform-stream.ts";
import type { WritableStreamDefaultController } from "./writable/default-controller.ts";

/** An underlying source for a default ReadableStream. */
export interface UnderlyingDefaultSource<R = unknown> {
  start?: (controller: ReadableStreamDefaultController<R>) => unknown;
  pull?: (controller: ReadableStreamDefaultController<R>) => void | PromiseLike<void>;
  cancel?: (reason?: unknown) => void | PromiseLike<void>;
  type?: undefined;
}

/** An underlying source for a readable byte stream. */
export interface UnderlyingByteSource {
  start?: (controller: ReadableByteStreamController) => unknown;
  pull?: (controller: ReadableByteStreamController) => void | PromiseLike<void>;
  cancel?: (reason?: unknown) => void | PromiseLike<void>;
  type: "bytes";
  autoAllocateChunkSize?: number;
}

/** Any underlying source. */
export type UnderlyingSource<R = unknown> = UnderlyingDefaultSource<R> | UnderlyingByteSource;


/** An underlying sink for a WritableStream. */
export interface UnderlyingSink<W = unknown> {
  start?: (controller: WritableStreamDefaultController) => unknown;
  write?: (chunk: W, controller: WritableStreamDefaultController) => void | PromiseLike<void>;
  close?: () => void | PromiseLike<void>;
  abort?: (reason?: unknown) => void | PromiseLike<void>;
  type?: undefined;
}


/** A transformer for a TransformStream. */
export interface Transformer<I = unknown, O = unknown> {
  start?: (controller: TransformStreamDefaultController<O>) => unknown;
  transform?: (chunk: I, controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>;
  flush?: (controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>;
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
