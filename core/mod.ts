/**
 * The fusestreams core: the WHATWG Streams Standard in runtime-agnostic TypeScript.
 * @module
 */
import { ReadableStream as ReadableStreamClass } from "./readable/readable-stream.ts";
import type { QueuingStrategy, UnderlyingByteSource, UnderlyingDefaultSource } from "./types.ts";
export { ReadableStreamDefaultReader } from "./readable/default-reader.ts";
export { ReadableStreamBYOBReader, type ReadableStreamBYOBReaderReadOptions } from "./readable/byob-reader.ts";
export { ReadableStreamDefaultController } from "./readable/default-controller.ts";
export { ReadableByteStreamController, ReadableStreamBYOBRequest } from "./readable/byte-controller.ts";
export type { ReadableStreamAsyncIterator } from "./readable/async-iterator.ts";
export type { ReadResult as ReadableStreamReadResult } from "./readable/read-requests.ts";
export { WritableStream } from "./writable/writable-stream.ts";
export { WritableStreamDefaultWriter } from "./writable/default-writer.ts";
export { WritableStreamDefaultController } from "./writable/default-controller.ts";
export { TransformStream, TransformStreamDefaultController } from "./transform/transform-stream.ts";
export { ByteLengthQueuingStrategy } from "./strategies/byte-length.ts";
export { CountQueuingStrategy } from "./strategies/count.ts";
export type * from "./types.ts";
export { inspectPipeChain, type PipeChainReport, type PipeLinkMode, type PipeLinkReport } from "./readable/pipe-chain.ts";
export {
  readableStreamState,
  type ReadableStreamStateView,
  whenReadableStreamSettles,
  writableStreamState,
  type WritableStreamStateView,
} from "./stream-state.ts";
export { ReadableStreamTeeInPlace as teeReadableStreamInPlace } from "./readable/readable-stream.ts";

/** The ReadableStream constructor: a byte source gives a `ReadableStream<Uint8Array>`. */
export interface ReadableStreamConstructor {
  readonly prototype: ReadableStreamClass<unknown>;
  new (underlyingSource: UnderlyingByteSource, strategy?: { highWaterMark?: number }): ReadableStreamClass<Uint8Array>;
  new <R = unknown>(underlyingSource?: UnderlyingDefaultSource<R>, strategy?: QueuingStrategy<R>): ReadableStreamClass<R>;
  new <R = unknown>(underlyingSource?: UnderlyingDefaultSource<R> | UnderlyingByteSource, strategy?: QueuingStrategy<R>): ReadableStreamClass<R>;
  /** Creates a ReadableStream that yields the values of an iterable or async iterable. */
  from<R>(asyncIterable: Iterable<R> | AsyncIterable<R>): ReadableStreamClass<R>;
}

/** A source of data that can be read, piped and teed (Streams §4.2). */
export const ReadableStream: ReadableStreamConstructor = ReadableStreamClass as unknown as ReadableStreamConstructor;
/** A source of data that can be read, piped and teed (Streams §4.2). */
export type ReadableStream<R = unknown> = ReadableStreamClass<R>;
