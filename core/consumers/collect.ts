/**
 * Reading a whole stream of bytes, shared by the consumers (`bytes()`, `text()`, `arrayBuffer()`, `blob()`,
 * `json()`).
 * @module
 */
import { isUint8Array, typedArrayByteLength } from "../shared/buffers.ts";
import { typeError } from "../shared/webidl.ts";
import { describeValue } from "../shared/describe.ts";
import { acquireBatchReader, BATCH_DONE, isBatchPromise, type ReadableStreamLike } from "../batching/batch-reader.ts";

/** Every chunk of a stream, in order, and their total length in bytes. */
export interface CollectedBytes {
  /** The chunks' bytes, in the order they were read. */
  chunks: Uint8Array[];
  /** Their total length in bytes. */
  length: number;
}

function ignore(): void {}

/** A chunk that must be a Uint8Array: itself, or the TypeError that ends the read. */
function uint8ArrayChunk(chunk: unknown, context: string): Uint8Array {
  if (!isUint8Array(chunk)) {
    throw typeError(`${context}: every chunk must be a Uint8Array, got ${describeValue(chunk)}`);
  }
  return chunk;
}

/**
 * Reads `stream` (any ReadableStream) to its end, in batches, and returns its chunks' bytes. Rejects, as `Response`
 * does: with a TypeError when `stream` is not a ReadableStream or is locked, or when a chunk is not a Uint8Array
 * (the stream is then cancelled with that TypeError); with the stream's stored error when it errors. The lock is
 * released at the end. `context` names the consumer in error messages.
 *
 * `bytesOf` turns each chunk into its bytes (by default: the chunk, which must be a Uint8Array); a runtime's body
 * passes one that takes any BufferSource. What it throws cancels the stream and rejects the read.
 */
export async function collectBytes(
  stream: unknown,
  context: string,
  bytesOf: (chunk: unknown, context: string) => Uint8Array = uint8ArrayChunk,
): Promise<CollectedBytes> {
  const reader = acquireBatchReader(stream as ReadableStreamLike<unknown>, context);
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      let next = reader.read();
      if (isBatchPromise(next)) next = await next;
      if (next === BATCH_DONE) break;
      for (let i = 0; i < next.length; i++) {
        let bytes: Uint8Array;
        try {
          bytes = bytesOf(next[i], context);
        } catch (error) {
          reader.cancel(error).then(undefined, ignore);
          throw error;
        }
        chunks.push(bytes);
        length += typedArrayByteLength(bytes);
      }
    }
  } finally {
    reader.release();
  }
  return { chunks, length };
}
