/**
 * `mergeReadableStreams(...streams)`: several streams read at once, their chunks interleaved as they come.
 * @module
 */
import { BATCH_DONE, type BatchReader, isBatchPromise } from "../batching/batch-reader.ts";
import type { AnyReadableStream } from "../consumers/types.ts";
import { NativePromise, PromisePrototypeThen } from "../shared/primordials.ts";
import type { ReadableStreamDefaultController } from "../api/readable-controllers.ts";
import { ReadableStream } from "../api/readable.ts";
import { acquireAll, cancelAll } from "./inputs.ts";

function ignore(): void {}

/**
 * A ReadableStream of the chunks of all `streams`, read concurrently: each chunk is enqueued as soon as its
 * input delivers it, so the chunks of one input keep their order, and inputs interleave. Every input is locked
 * at once (a TypeError if one is locked or not a ReadableStream). Inputs are read only while the output wants
 * more (its `desiredSize` is positive), starting at its first pull, one batch at a time (see `readMany()`: up to
 * 64 chunks from a source that delivers one per pull reaction). The output closes when every input has closed.
 *
 * - Cancelling the output cancels every input that has not ended, with the same reason.
 * - An input's error errors the output with that same error object, and cancels the other inputs with it.
 *
 * @example
 * ```ts
 * import { mergeReadableStreams, ReadableStream } from "fusestreams";
 *
 * const merged = mergeReadableStreams(ReadableStream.from(["a1", "a2"]), ReadableStream.from(["b1"]));
 * console.log((await Array.fromAsync(merged)).sort()); // ["a1", "a2", "b1"]
 * ```
 *
 * @param streams ReadableStreams (of fusestreams or of the runtime); they get locked.
 * @returns a fusestreams ReadableStream.
 */
export function mergeReadableStreams<T>(...streams: AnyReadableStream<T>[]): ReadableStream<T> {
  const readers = acquireAll(streams, "mergeReadableStreams()");
  const live = new Set<BatchReader<T>>(readers);
  let controller!: ReadableStreamDefaultController<T>;
  let started = false;
  let ended = false;
  /** Wakes the inputs that wait for demand (set while any waits). */
  let wake: (() => void) | undefined;
  let demand: Promise<void> | undefined;

  const waitForDemand = (): Promise<void> => {
    demand ??= new NativePromise<void>((resolve) => {
      wake = resolve;
    });
    return demand;
  };
  const fail = (e: unknown): void => {
    if (ended) return;
    ended = true;
    controller.error(e);
    const others = [...live];
    live.clear();
    PromisePrototypeThen(cancelAll(others, e), undefined, ignore);
  };
  const pump = (reader: BatchReader<T>): void => {
    for (;;) {
      if (ended) return;
      if ((controller.desiredSize ?? 0) <= 0) {
        PromisePrototypeThen(waitForDemand(), () => pump(reader));
        return;
      }
      const next = reader.read();
      if (isBatchPromise(next)) {
        PromisePrototypeThen(next, (batch) => {
          if (take(reader, batch)) pump(reader);
        }, (e: unknown) => {
          live.delete(reader);
          reader.release();
          fail(e);
        });
        return;
      }
      if (!take(reader, next)) return;
    }
  };
  /** Handles one batch of `reader`; false when that input is finished. */
  const take = (reader: BatchReader<T>, batch: T[] | typeof BATCH_DONE): boolean => {
    if (ended) return false;
    if (batch === BATCH_DONE) {
      live.delete(reader);
      reader.release();
      if (live.size === 0) {
        ended = true;
        controller.close();
      }
      return false;
    }
    for (let i = 0; i < batch.length; i++) controller.enqueue(batch[i]!);
    return true;
  };

  return new ReadableStream<T>({
    start(c) {
      controller = c;
    },
    pull() {
      if (!started) {
        started = true;
        if (readers.length === 0) {
          ended = true;
          controller.close();
          return;
        }
        for (const reader of readers) pump(reader);
        return;
      }
      const w = wake;
      wake = undefined;
      demand = undefined;
      w?.();
    },
    cancel(reason) {
      ended = true;
      const rest = [...live];
      live.clear();
      const w = wake;
      wake = undefined;
      w?.();
      return cancelAll(rest, reason);
    },
  });
}
