/**
 * Reading a whole stream of bytes, shared by the consumers (`bytes()`, `text()`, `arrayBuffer()`, `blob()`,
 * `json()`).
 * @module
 */
import { isUint8Array, typedArrayByteLength } from "../shared/buffers.ts";
import { typeError } from "../shared/webidl.ts";
import { describeValue } from "../shared/describe.ts";
import { acquireBatchReader, BATCH_DONE, type BatchReader, isBatchPromise, type ReadableStreamLike } from "./read-batch.ts";

/** Every chunk of a stream, in order, and their total length in bytes. */
export interface CollectedBytes {
  chunks: Uint8Array[];
  length: number;
}

function ignore(): void {}

/**
 * Reads `stream` (any ReadableStream) to its end and returns its chunks, which must all be Uint8Arrays. Rejects,
 * as `Response` does: with a TypeError when `stream` is not a ReadableStream or is locked, or when a chunk is not
 * a Uint8Array (the stream is then cancelled with that TypeError); with the stream's stored error when it errors.
 * The lock is released at the end. `context` names the consumer in error messages.
 */
export async function collectBytes(stream: unknown, context: string): Promise<CollectedBytes> {
  const reader = acquireBatchReader(stream as ReadableStreamLike<unknown>, context);
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      let next = reader.read();
      if (isBatchPromise(next)) next = await next;
      if (next === BATCH_DONE) break;
      for (let i = 0; i < next.length; i++) {
        const chunk = next[i];
        if (!isUint8Array(chunk)) throw badChunk(reader, chunk, context);
        chunks.push(chunk);
        length += typedArrayByteLength(chunk);
      }
    }
  } finally {
    reader.release();
  }
  return { chunks, length };
}

/** The TypeError for a chunk that is not a Uint8Array; cancels the stream with it (without waiting). */
function badChunk(reader: BatchReader<unknown>, chunk: unknown, context: string): TypeError {
  const error = typeError(`${context}: every chunk must be a Uint8Array, got ${describeValue(chunk)}`);
  reader.cancel(error).then(undefined, ignore);
  return error;
}
