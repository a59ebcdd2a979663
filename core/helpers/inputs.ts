/**
 * The input side shared by `concatReadableStreams()` and `mergeReadableStreams()`.
 * @module
 */
import { acquireBatchReader, type BatchReader, type ReadableStreamLike } from "../batching/batch-reader.ts";
import type { AnyReadableStream } from "../consumers/types.ts";
import { NativePromise, PromisePrototypeThen } from "../shared/primordials.ts";

/**
 * Locks every stream in `streams` for batched reading; when one cannot be locked (not a ReadableStream, or
 * locked), releases those already locked and throws that TypeError.
 */
export function acquireAll<T>(streams: readonly AnyReadableStream<T>[], context: string): BatchReader<T>[] {
  const readers: BatchReader<T>[] = [];
  try {
    for (let i = 0; i < streams.length; i++) {
      readers.push(acquireBatchReader(streams[i] as ReadableStreamLike<T>, `${context}: argument ${i + 1}`));
    }
  } catch (e) {
    for (const reader of readers) reader.release();
    throw e;
  }
  return readers;
}

/** Cancels each of `readers` with `reason`; fulfills when all cancels have settled, rejects with the first failure. */
export function cancelAll<T>(readers: readonly BatchReader<T>[], reason: unknown): Promise<void> {
  return new NativePromise<void>((resolve, reject) => {
    let pending = readers.length;
    let failed = false;
    let failure: unknown;
    const settled = (): void => {
      if (--pending !== 0) return;
      if (failed) reject(failure);
      else resolve();
    };
    const onError = (e: unknown): void => {
      if (!failed) {
        failed = true;
        failure = e;
      }
      settled();
    };
    if (pending === 0) resolve();
    for (const reader of readers) PromisePrototypeThen(reader.cancel(reason), settled, onError);
  });
}
