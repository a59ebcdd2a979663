/**
 * The public types of the readable side: ReadableStream, its readers and its async iterator, as structural
 * interfaces plus the constructors that implement them.
 *
 * Why interfaces and not the classes themselves: the classes keep their state in `#private` fields, and a
 * class with a `#private` member is nominal in TypeScript, so a runtime's own `ReadableStream` would not be
 * assignable to ours (nor ours to a parameter typed with a class). These interfaces have the members the
 * standard defines, with the generic defaults and result types the runtimes' declarations use (lib.dom and
 * @types/node), so a stream of either kind type-checks wherever the other is expected, as it runs.
 * @module
 */
import { ReadableStreamBYOBReader as BYOBReaderClass } from "../readable/byob-reader.ts";
import { ReadableStreamDefaultReader as DefaultReaderClass } from "../readable/default-reader.ts";
import { ReadableStream as ReadableStreamClass } from "../readable/readable-stream.ts";
import type {
  QueuingStrategy,
  ReadableStreamBYOBReaderReadOptions,
  ReadableStreamGetReaderOptions,
  ReadableStreamIteratorOptions,
  StreamPipeOptions,
  UnderlyingByteSource,
  UnderlyingDefaultSource,
  UnderlyingSource,
} from "../types.ts";
import type { WritableStream } from "./writable.ts";

/** A readable stream of chunks of type `R`: read it, pipe it, tee it or iterate over it (Streams §4.2). */
export interface ReadableStream<R = any> {
  /** Whether the stream is locked to a reader (or a pipe). */
  readonly locked: boolean;
  /** Cancels the stream: the consumer has lost interest; `reason` goes to the underlying source's `cancel()`. */
  cancel(reason?: any): Promise<void>;
  /** Locks the stream to a new BYOB reader (readable byte streams only). */
  getReader(options: { mode: "byob" }): ReadableStreamBYOBReader;
  /** Locks the stream to a new default reader. */
  getReader(): ReadableStreamDefaultReader<R>;
  /** Locks the stream to a new reader: a BYOB reader with `{ mode: "byob" }`, a default reader otherwise. */
  getReader(options?: ReadableStreamGetReaderOptions): ReadableStreamReader<R>;
  /** Pipes this stream into `transform.writable` and returns `transform.readable`. */
  pipeThrough<T>(transform: ReadableWritablePair<T, R>, options?: StreamPipeOptions): ReadableStream<T>;
  /** Pipes this stream into `destination`; fulfills when everything was written and the destination closed. */
  pipeTo(destination: WritableStream<R>, options?: StreamPipeOptions): Promise<void>;
  /** Splits the stream into two branches that each receive every chunk. */
  tee(): [ReadableStream<R>, ReadableStream<R>];
  /** An async iterator over the chunks (`for await (const chunk of stream)`). */
  [Symbol.asyncIterator](options?: ReadableStreamIteratorOptions): ReadableStreamAsyncIterator<R>;
  /** An async iterator over the chunks; with `{ preventCancel: true }` leaving the loop early does not cancel. */
  values(options?: ReadableStreamIteratorOptions): ReadableStreamAsyncIterator<R>;
}

/** The `ReadableStream` constructor and its static members. */
export interface ReadableStreamConstructor {
  /** The prototype of every ReadableStream made by this constructor. */
  readonly prototype: ReadableStream;
  /** Creates a readable byte stream (`type: "bytes"`): its chunks are `Uint8Array`s and it supports BYOB readers. */
  new (underlyingSource: UnderlyingByteSource, strategy?: { highWaterMark?: number }): ReadableStream<Uint8Array<ArrayBuffer>>;
  /** Creates a readable stream fed by `underlyingSource`, buffering as `strategy` says. */
  new <R = any>(underlyingSource: UnderlyingDefaultSource<R>, strategy?: QueuingStrategy<R>): ReadableStream<R>;
  /** Creates a readable stream (without a source: one that never produces a chunk until cancelled). */
  new <R = any>(underlyingSource?: UnderlyingSource<R>, strategy?: QueuingStrategy<R>): ReadableStream<R>;
  /** Creates a ReadableStream that yields the values of an iterable or async iterable (a native stream too). */
  from<R = any>(asyncIterable: Iterable<R> | AsyncIterable<R>): ReadableStream<R>;
}

/** A writable stream and a readable stream that belong together, such as a TransformStream's two sides. */
export interface ReadableWritablePair<R = any, W = any> {
  /** The side data comes out of. */
  readable: ReadableStream<R>;
  /** The side data is written into. */
  writable: WritableStream<W>;
}

/** What a reader's `read()` fulfills with while the stream still has a chunk. */
export interface ReadableStreamReadValueResult<T> {
  /** Always `false`: a chunk was read. */
  done: false;
  /** The chunk. */
  value: T;
}

/** What a reader's `read()` fulfills with once the stream is closed. */
export interface ReadableStreamReadDoneResult<T> {
  /** Always `true`: there are no more chunks. */
  done: true;
  /** `undefined`, or for a BYOB read on a closed stream, an empty view over the buffer that was passed in. */
  value: T | undefined;
}

/** The result of a reader's `read()`. */
export type ReadableStreamReadResult<T> = ReadableStreamReadValueResult<T> | ReadableStreamReadDoneResult<T>;

/** The members both kinds of reader have. */
export interface ReadableStreamGenericReader {
  /** Fulfills when the stream closes; rejects when it errors or when the reader's lock is released. */
  readonly closed: Promise<void>;
  /** Cancels the stream (the reader must still hold the lock). */
  cancel(reason?: any): Promise<void>;
}

/** A reader that reads chunks from a ReadableStream it has locked (Streams §4.3). */
export interface ReadableStreamDefaultReader<R = any> extends ReadableStreamGenericReader {
  /** Reads the next chunk: `{ done: false, value }`, or `{ done: true, value: undefined }` once closed. */
  read(): Promise<ReadableStreamReadResult<R>>;
  /** Releases the lock on the stream; reads still pending reject with a TypeError. */
  releaseLock(): void;
}

/** The `ReadableStreamDefaultReader` constructor. */
export interface ReadableStreamDefaultReaderConstructor {
  /** The prototype of every default reader. */
  readonly prototype: ReadableStreamDefaultReader;
  /** Locks `stream` and creates a reader for it; throws a TypeError if it is already locked. */
  new <R = any>(stream: ReadableStream<R>): ReadableStreamDefaultReader<R>;
}

/** A reader of a readable byte stream that reads into buffers the consumer supplies (Streams §4.4). */
export interface ReadableStreamBYOBReader extends ReadableStreamGenericReader {
  /**
   * Reads bytes into `view` (at least `options.min` elements, default 1). The view's buffer is transferred:
   * the result is a new view of the same type over it, and `view` itself becomes unusable.
   */
  read<T extends ArrayBufferView<ArrayBuffer>>(view: T, options?: ReadableStreamBYOBReaderReadOptions): Promise<ReadableStreamReadResult<T>>;
  /** Releases the lock on the stream; reads still pending reject with a TypeError. */
  releaseLock(): void;
}

/** The `ReadableStreamBYOBReader` constructor. */
export interface ReadableStreamBYOBReaderConstructor {
  /** The prototype of every BYOB reader. */
  readonly prototype: ReadableStreamBYOBReader;
  /** Locks the readable byte stream `stream`; throws a TypeError if it is locked or not a byte stream. */
  new (stream: ReadableStream<Uint8Array<ArrayBuffer>>): ReadableStreamBYOBReader;
}

/** Either kind of reader. */
export type ReadableStreamReader<T> = ReadableStreamDefaultReader<T> | ReadableStreamBYOBReader;

/**
 * The async iterator of `stream.values()` and `for await (const chunk of stream)`. Leaving the loop early
 * (`break`, `return`, a throw) cancels the stream unless `{ preventCancel: true }` was given.
 */
export interface ReadableStreamAsyncIterator<T> extends AsyncIteratorObject<T, BuiltinIteratorReturn, unknown> {
  /** The iterator itself. */
  [Symbol.asyncIterator](): ReadableStreamAsyncIterator<T>;
}

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
export const ReadableStream: ReadableStreamConstructor = ReadableStreamClass;

/** A reader that reads chunks from a ReadableStream it has locked (Streams §4.3): `stream.getReader()`. */
export const ReadableStreamDefaultReader: ReadableStreamDefaultReaderConstructor = DefaultReaderClass;

/** A reader of a readable byte stream that reads into buffers the consumer supplies (Streams §4.4). */
export const ReadableStreamBYOBReader: ReadableStreamBYOBReaderConstructor = BYOBReaderClass;
