/**
 * `batches(stream)`: a ReadableStream as an async iterable of arrays of chunks.
 * @module
 */
import { PromisePrototypeThen, PromiseResolve, SymbolAsyncIterator } from "../shared/primordials.ts";
import { convertBoolean, convertDictionary } from "../shared/webidl.ts";
import {
  acquireBatchReader,
  type BatchAnswer,
  type BatchReader,
  isAnswerPromise,
  type ReadableStreamLike,
} from "../batching/batch-reader.ts";
import type { AnyReadableStream, BatchesOptions, ReadableStreamBatchIterator } from "./types.ts";

const DONE_RESULT: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The iterator `batches()` returns. Calls are answered in order: a `next()` or `return()` made while another
 * is pending runs after it, as with `values()`. A waiting `next()` is settled by the batch read itself (see
 * BatchAnswer), and the end or an error releases the lock right there.
 */
class BatchIterator<T> implements ReadableStreamBatchIterator<T> {
  readonly #reader: BatchReader<T>;
  readonly #preventCancel: boolean;
  #finished = false;
  #ongoing: Promise<unknown> | undefined = undefined;
  readonly #answer: BatchAnswer<IteratorResult<T[], undefined>> = {
    chunks: (held) => {
      this.#ongoing = undefined;
      return { done: false, value: held as T[] };
    },
    end: () => {
      this.#ongoing = undefined;
      this.#finish();
      return DONE_RESULT;
    },
    // The stream has errored (or the reader was released by someone else).
    error: () => {
      this.#ongoing = undefined;
      this.#finish();
    },
  };

  constructor(reader: BatchReader<T>, preventCancel: boolean) {
    this.#reader = reader;
    this.#preventCancel = preventCancel;
  }

  next(): Promise<IteratorResult<T[], undefined>> {
    const ongoing = this.#ongoing;
    if (ongoing !== undefined) {
      const step = (): Promise<IteratorResult<T[], undefined>> => this.next();
      return PromisePrototypeThen(ongoing, step, step);
    }
    if (this.#finished) return PromiseResolve(DONE_RESULT);
    const next = this.#reader.readAs(this.#answer);
    if (!isAnswerPromise(next)) return PromiseResolve(next);
    this.#ongoing = next;
    return next;
  }

  return(value?: unknown): Promise<IteratorResult<T[], undefined>> {
    const ongoing = this.#ongoing;
    if (ongoing !== undefined) {
      const step = (): Promise<IteratorResult<T[], undefined>> => this.return(value);
      return PromisePrototypeThen(ongoing, step, step);
    }
    if (this.#finished) return PromiseResolve(DONE_RESULT);
    this.#finished = true;
    if (this.#preventCancel) {
      this.#reader.release();
      return PromiseResolve(DONE_RESULT);
    }
    const p = PromisePrototypeThen(this.#reader.cancel(value), (): IteratorResult<T[], undefined> => {
      this.#ongoing = undefined;
      return DONE_RESULT;
    }, (e: unknown): never => {
      this.#ongoing = undefined;
      throw e;
    });
    this.#ongoing = p;
    return p;
  }

  [SymbolAsyncIterator](): this {
    return this;
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#reader.release();
  }
}

/**
 * Iterates over `stream` in batches: each step gives an array of every chunk available at that point (at
 * least one), so a loop over a stream that has many chunks queued, or whose source delivers them one pull
 * reaction after another, pays one `await` per batch instead of one per chunk. See `readMany()` for what a
 * batch holds; `pull()` is called exactly as a `for await` over the stream would call it. A batch that waits for a
 * chunk enqueued from outside `pull()` (a controller kept from `start()`) also holds the chunks enqueued right
 * after it, before the loop body runs: a burst of `enqueue()` calls in one task is one batch.
 *
 * The stream is locked at once. The loop ends when the stream closes (the lock is released), and throws the
 * stream's error (released too). Leaving the loop early (`break`, `return`, a throw in its body) cancels the
 * stream with `undefined`, as `values()` does, unless `preventCancel` is set, which only releases it.
 *
 * Works on the runtime's own streams too (one chunk per batch, or Bun's `readMany()`).
 *
 * @example
 * ```ts
 * import { batches, ReadableStream } from "fusestreams";
 *
 * const stream = ReadableStream.from(["a", "b", "c"]);
 * for await (const chunks of batches(stream)) {
 *   for (const chunk of chunks) console.log(chunk);
 * }
 * ```
 *
 * @param stream a ReadableStream (of fusestreams or of the runtime); it gets locked.
 * @param options `preventCancel`: do not cancel the stream when the loop ends early.
 * @returns an async iterable iterator of non-empty arrays of chunks.
 */
export function batches<T>(stream: AnyReadableStream<T>, options?: BatchesOptions): ReadableStreamBatchIterator<T> {
  const dict = convertDictionary(options, "batches() options");
  const preventCancel = dict === undefined ? false : convertBoolean(dict.preventCancel);
  return new BatchIterator<T>(acquireBatchReader(stream as ReadableStreamLike<T>, "batches()"), preventCancel);
}
