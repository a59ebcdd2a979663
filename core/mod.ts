/**
 * The fusestreams core: the WHATWG Streams Standard in runtime-agnostic TypeScript.
 * @module
 */
export { ReadableStream } from "./readable/readable-stream.ts";
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
