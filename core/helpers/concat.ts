/**
 * `concatReadableStreams(...streams)`: one stream after another.
 * @module
 */
import { type Batch, BATCH_DONE, isBatchPromise } from "../batching/batch-reader.ts";
import type { AnyReadableStream } from "../consumers/types.ts";
import { PromisePrototypeThen } from "../shared/primordials.ts";
import { ReadableStream } from "../api/readable.ts";
import type { ReadableStreamDefaultController } from "../api/readable-controllers.ts";
import { acquireAll, cancelAll } from "./inputs.ts";

function ignore(): void {}

/**
 * A ReadableStream of the chunks of `streams`, one stream after the other, each read to its end before the
 * next one is read at all. Every input is locked at once (a TypeError if one is locked or not a
 * ReadableStream). Reading is driven by the output's reader: nothing is read ahead of demand but the batch the
 * input has ready (see `readMany()`).
 *
 * - Cancelling the output cancels, with the same reason, the input being read and every input not read yet.
 * - An input's error errors the output with that same error object, and cancels the inputs not read yet with it.
 *
 * @example
 * ```ts
 * import { concatReadableStreams, ReadableStream } from "fusestreams";
 *
 * const all = concatReadableStreams(ReadableStream.from([1, 2]), ReadableStream.from([3]));
 * console.log(await Array.fromAsync(all)); // [1, 2, 3]
 * ```
 *
 * @param streams ReadableStreams (of fusestreams or of the runtime); they get locked.
 * @returns a fusestreams ReadableStream.
 */
export function concatReadableStreams<T>(...streams: AnyReadableStream<T>[]): ReadableStream<T> {
  const readers = acquireAll(streams, "concatReadableStreams()");
  let index = 0;
  let controller!: ReadableStreamDefaultController<T>;
  /** Enqueues a batch of the current input, or moves on to the next input; true when the pull is done. */
  const take = (batch: Batch<T>): boolean => {
    if (batch === BATCH_DONE) {
      readers[index++]!.release();
      return false;
    }
    for (let i = 0; i < batch.length; i++) controller.enqueue(batch[i]!);
    return true;
  };
  const fail = (e: unknown): never => {
    readers[index]!.release();
    PromisePrototypeThen(cancelAll(readers.slice(index + 1), e), undefined, ignore);
    index = readers.length;
    throw e;
  };
  const pull = (): Promise<void> | undefined => {
    for (;;) {
      if (index === readers.length) {
        controller.close();
        return undefined;
      }
      const next = readers[index]!.read();
      if (isBatchPromise(next)) {
        return PromisePrototypeThen(next, (batch) => {
          if (!take(batch)) return pull();
          return undefined;
        }, fail);
      }
      if (take(next)) return undefined;
    }
  };
  return new ReadableStream<T>({
    start(c) {
      controller = c;
    },
    pull,
    cancel(reason) {
      const rest = readers.slice(index);
      index = readers.length;
      return cancelAll(rest, reason);
    },
  }, { highWaterMark: 0 });
}
