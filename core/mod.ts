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
  type ReadableStreamController,
  ReadableStreamBYOBRequest,
  type ReadableStreamBYOBRequestConstructor,
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
