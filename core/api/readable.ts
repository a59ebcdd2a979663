// deno-lint-ignore-file no-explicit-any -- the generic defaults and callback types are lib.dom's (`any`)
/**
 * The public types of the readable side: ReadableStream, its readers and its async iterator, plus the
 * constructors (the classes behind them).
 *
 * The instance types are the global interfaces of the environment the code is compiled in (lib.dom,
 * @types/node, Deno, Bun, workers), not the classes. The classes keep their state in `#private` fields, and
 * a class with a `#private` member is nominal in TypeScript: a runtime's own stream would not be assignable
 * to it. Nor would separately declared interfaces do: TypeScript cannot relate two independent declarations
 * of the streams API with a concrete chunk type (it infers `T | undefined` for `pipeThrough<T>` from the two
 * `ReadableStreamReadResult` unions; lib.dom's and @types/node's own streams are not assignable to each other
 * either). With the global interfaces, a fusestreams stream and a native one are the same type, with
 * lib.dom's generic defaults (`any`); the constructors are checked against them when the core is compiled.
 * @module
 */
import { ReadableStreamBYOBReader as BYOBReaderClass } from "../readable/byob-reader.ts";
import { ReadableStreamDefaultReader as DefaultReaderClass } from "../readable/default-reader.ts";
import { ReadableStream as ReadableStreamClass } from "../readable/readable-stream.ts";
import type { QueuingStrategy, UnderlyingByteSource, UnderlyingDefaultSource, UnderlyingSource } from "../types.ts";

/**
 * A readable stream of chunks of type `R` (Streams §4.2): the global `ReadableStream` interface of the
 * environment the code is compiled in (lib.dom, @types/node, Deno, Bun, workers), so that a fusestreams
 * stream and a runtime's own stream are the same type.
 */
export type ReadableStream<R = any> = globalThis.ReadableStream<R>;

/** The `ReadableStream` constructor and its static members. */
export interface ReadableStreamConstructor {
  /** The prototype of every ReadableStream made by this constructor. */
  readonly prototype: ReadableStream;
  /** Creates a readable byte stream (`type: "bytes"`): its chunks are `Uint8Array`s and it supports BYOB readers. */
  new (
    underlyingSource: UnderlyingByteSource,
    strategy?: { highWaterMark?: number },
  ): ReadableStream<Uint8Array<ArrayBuffer>>;
  /** Creates a readable stream fed by `underlyingSource`, buffering as `strategy` says. */
  new <R = any>(underlyingSource: UnderlyingDefaultSource<R>, strategy?: QueuingStrategy<R>): ReadableStream<R>;
  /** Creates a readable stream (without a source: one that never produces a chunk until cancelled). */
  new <R = any>(underlyingSource?: UnderlyingSource<R>, strategy?: QueuingStrategy<R>): ReadableStream<R>;
  /** Creates a ReadableStream that yields the values of an iterable or async iterable (a native stream too). */
  from<R = any>(asyncIterable: Iterable<R> | AsyncIterable<R>): ReadableStream<R>;
}

/** A writable stream and a readable stream that belong together, such as a TransformStream's two sides. */
export type ReadableWritablePair<R = any, W = any> = globalThis.ReadableWritablePair<R, W>;

/** A reader that reads chunks from a ReadableStream it has locked (Streams §4.3): the global interface. */
export type ReadableStreamDefaultReader<R = any> = globalThis.ReadableStreamDefaultReader<R>;

/** The result of a reader's `read()`: `{ done: false, value }`, or `{ done: true, value: undefined }` once closed. */
export type ReadableStreamReadResult<T> = Awaited<ReturnType<ReadableStreamDefaultReader<T>["read"]>>;

/** The `ReadableStreamDefaultReader` constructor. */
export interface ReadableStreamDefaultReaderConstructor {
  /** The prototype of every default reader. */
  readonly prototype: ReadableStreamDefaultReader;
  /** Locks `stream` and creates a reader for it; throws a TypeError if it is already locked. */
  new <R = any>(stream: ReadableStream<R>): ReadableStreamDefaultReader<R>;
}

/** A reader of a readable byte stream that reads into buffers the consumer supplies (Streams §4.4): the global interface. */
export type ReadableStreamBYOBReader = globalThis.ReadableStreamBYOBReader;

/** Either kind of reader. */
export type ReadableStreamReader<T> = ReadableStreamDefaultReader<T> | ReadableStreamBYOBReader;

/** The `ReadableStreamBYOBReader` constructor. */
export interface ReadableStreamBYOBReaderConstructor {
  /** The prototype of every BYOB reader. */
  readonly prototype: ReadableStreamBYOBReader;
  /** Locks the readable byte stream `stream`; throws a TypeError if it is locked or not a byte stream. */
  new (stream: ReadableStream<Uint8Array<ArrayBuffer>>): ReadableStreamBYOBReader;
}

/**
 * The async iterator of `stream.values()` and `for await (const chunk of stream)`: the one the environment's
 * `ReadableStream` declares (where it declares none, e.g. lib.dom without DOM.AsyncIterable, an
 * `AsyncIterableIterator`). Leaving the loop early cancels the stream unless `{ preventCancel: true }` was given.
 */
export type ReadableStreamAsyncIterator<T> = ReadableStream<T> extends { values(...args: any[]): infer I } ? I
  : AsyncIterableIterator<T>;

/**
 * A readable stream (Streams §4.2): `new ReadableStream(underlyingSource, strategy)` or
 * `ReadableStream.from(iterable)`.
 *
 * @example
 * ```ts
 * import { ReadableStream } from "fusestreams";
 *
 * const stream = ReadableStream.from(["a", "b", "c"]);
 * for await (const chunk of stream) console.log(chunk);
 * ```
 */
export const ReadableStream: ReadableStreamConstructor = ReadableStreamClass as unknown as ReadableStreamConstructor;

/** A reader that reads chunks from a ReadableStream it has locked (Streams §4.3): `stream.getReader()`. */
export const ReadableStreamDefaultReader: ReadableStreamDefaultReaderConstructor =
  DefaultReaderClass as unknown as ReadableStreamDefaultReaderConstructor;

/** A reader of a readable byte stream that reads into buffers the consumer supplies (Streams §4.4). */
export const ReadableStreamBYOBReader: ReadableStreamBYOBReaderConstructor =
  BYOBReaderClass as unknown as ReadableStreamBYOBReaderConstructor;
