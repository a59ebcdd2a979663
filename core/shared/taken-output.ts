/**
 * The reading half of FP-ENCODE-INTO and FP-CODEC-INTO: a transform's readable side whose producer writes its
 * output into a {@link ByteBuilder} instead of enqueuing it, read whole by one of our consumers. The consumer
 * holds the only reader, so no chunk it would have been given can be missed by anyone.
 * @module
 */
import type { ByteBuilder } from "./byte-builder.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";

/** A transform's readable side taken whole: its bytes, and the reader that holds it. */
export interface TakenOutput {
  /** Every byte its producer makes from the take on, once it closes; rejects with its error when it errors. */
  readonly bytes: Promise<Uint8Array<ArrayBuffer>>;
  /** Cancels the stream with `reason` (through the reader that holds it); the stream's cancel promise. */
  cancel(reason: unknown): Promise<void>;
  /** Unlocks the stream (for a consumer that lets go of a stream it read, as a pipe does), once `bytes` settled. */
  release(): void;
}

/**
 * Locks `stream` (whose producer now writes into `builder`, so it only closes or errors) and reads it to its end.
 * `producer` names the producer in the TypeError of a chunk that came anyway.
 */
export function readTakenOutput(stream: unknown, builder: ByteBuilder, producer: string): TakenOutput {
  const reader = (stream as ReadableStream<unknown>).getReader();
  const bytes = reader.read().then((result) => {
    // The producer enqueues nothing once its output is taken: the first read is the end.
    if (!result.done) throw new TypeError(`A ${producer} gave a chunk after its output was taken`);
    return builder.take();
  });
  return { bytes, cancel: (reason) => reader.cancel(reason), release: () => reader.releaseLock() };
}
