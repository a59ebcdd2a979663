/**
 * The fusestreams core: the WHATWG Streams Standard in runtime-agnostic TypeScript.
 *
 * The classes are exported as constants whose instance types are the environment's global stream interfaces
 * (`core/api/`), so that they are interchangeable in TypeScript with the runtime's own streams, as they are
 * at run time.
 * @module
 */
export {
  ReadableStream,
  type ReadableStreamAsyncIterator,
  ReadableStreamBYOBReader,
  type ReadableStreamBYOBReaderConstructor,
  type ReadableStreamConstructor,
  ReadableStreamDefaultReader,
  type ReadableStreamDefaultReaderConstructor,
  type ReadableStreamReader,
  type ReadableStreamReadResult,
} from "./api/readable.ts";
export {
  ReadableByteStreamController,
  type ReadableByteStreamControllerConstructor,
  ReadableStreamBYOBRequest,
  type ReadableStreamBYOBRequestConstructor,
  type ReadableStreamController,
  ReadableStreamDefaultController,
  type ReadableStreamDefaultControllerConstructor,
} from "./api/readable-controllers.ts";
export {
  WritableStream,
  type WritableStreamConstructor,
  WritableStreamDefaultController,
  type WritableStreamDefaultControllerConstructor,
  WritableStreamDefaultWriter,
  type WritableStreamDefaultWriterConstructor,
} from "./api/writable.ts";
export {
  TransformStream,
  type TransformStreamConstructor,
  TransformStreamDefaultController,
  type TransformStreamDefaultControllerConstructor,
} from "./api/transform.ts";
export {
  ByteLengthQueuingStrategy,
  type ByteLengthQueuingStrategyConstructor,
  CountQueuingStrategy,
  type CountQueuingStrategyConstructor,
} from "./api/strategies.ts";
export {
  type CompressionFormat,
  CompressionStream,
  type CompressionStreamConstructor,
  DecompressionStream,
  type DecompressionStreamConstructor,
} from "./api/compression.ts";
export {
  TextDecoderStream,
  type TextDecoderStreamConstructor,
  TextEncoderStream,
  type TextEncoderStreamConstructor,
} from "./api/text-codecs.ts";
export type * from "./types.ts";
export { inspectPipeChain, type PipeChainReport, type PipeLinkMode, type PipeLinkReport } from "./fusion/inspect.ts";
export {
  readableStreamState,
  type ReadableStreamStateView,
  whenReadableStreamSettles,
  writableStreamState,
  type WritableStreamStateView,
} from "./stream-state.ts";
// Consumers, batched reads and helpers (issue 18): one module per API, tree-shaken when unused.
export { arrayBuffer } from "./consumers/array-buffer.ts";
export { batches } from "./consumers/batches.ts";
export { blob, type BlobOptions } from "./consumers/blob.ts";
export { bytes } from "./consumers/bytes.ts";
export { json } from "./consumers/json.ts";
export { readMany } from "./consumers/read-many.ts";
export { text } from "./consumers/text.ts";
export type {
  AnyReadableStream,
  AnyReadableStreamDefaultReader,
  BatchesOptions,
  ReadableStreamBatchIterator,
  ReadManyResult,
} from "./consumers/types.ts";
export { concatReadableStreams } from "./helpers/concat.ts";
export { mergeReadableStreams } from "./helpers/merge.ts";
export {
  TextLineStream,
  type TextLineStreamConstructor,
  type TextLineStreamOptions,
} from "./helpers/text-line-stream.ts";
