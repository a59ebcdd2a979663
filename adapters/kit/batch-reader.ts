/**
 * The core's batch reader (`core/batching/batch-reader.ts`), for the adapters' own bridges that drain one of
 * our streams into the runtime's I/O (the Node.js adapter's `toNodeReadable`). Adapters reach the core's
 * internals only through the kit.
 * @module
 */
export {
  acquireBatchReader,
  type Batch,
  BATCH_DONE,
  type BatchAnswer,
  isBatchPromise,
  isTransformReadable,
  type ReadableStreamLike,
} from "../../core/internal.ts";
