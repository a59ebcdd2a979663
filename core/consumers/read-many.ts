/**
 * `readMany(reader)`: every chunk available now, in one read (whatwg/streams#1236, Bun's `readMany()`).
 * @module
 */
import { PromiseReject, PromiseResolve } from "../shared/primordials.ts";
import { type BatchAnswer, batchReaderOf, type DefaultReaderLike, isAnswerPromise } from "../batching/batch-reader.ts";
import type { AnyReadableStreamDefaultReader, ReadManyResult } from "./types.ts";

const RESULT_ANSWER: BatchAnswer<ReadManyResult<unknown>> = {
  chunks: (held) => ({ done: false, value: held }),
  end: () => ({ done: true, value: [] }),
  error: () => {},
};

/**
 * Reads every chunk available now from `reader`: resolves with `{ done: false, value }`, where `value` holds
 * at least one chunk, or with `{ done: true, value: [] }` once the stream has closed; rejects with the stream's
 * error (the stored error object itself) or a TypeError for a released reader.
 *
 * On a fusestreams stream, the chunks already queued are taken in one step, each dequeued as `read()` would
 * dequeue it; when none is queued, it waits for the next chunk and, while the source's `pull()` keeps
 * delivering one chunk per pull reaction, collects those too (up to 64). The source's `pull()` is called
 * exactly as a read loop would call it: the same number of times, in the same order against other jobs.
 * On another implementation's reader it is one `read()` (one chunk per result), or Bun's own `readMany()`.
 *
 * @example
 * ```ts
 * import { ReadableStream, readMany } from "fusestreams";
 *
 * const reader = ReadableStream.from(["a", "b", "c"]).getReader();
 * let text = "";
 * for (let r = await readMany(reader); !r.done; r = await readMany(reader)) text += r.value.join("");
 * console.log(text); // "abc"
 * ```
 *
 * @param reader a default reader (of fusestreams or of the runtime).
 * @returns a promise of the chunks read.
 */
export function readMany<T>(reader: AnyReadableStreamDefaultReader<T>): Promise<ReadManyResult<T>> {
  let next: ReadManyResult<unknown> | Promise<ReadManyResult<unknown>>;
  try {
    next = batchReaderOf(reader as DefaultReaderLike<T>, "readMany()").readAs(RESULT_ANSWER);
  } catch (e) {
    return PromiseReject(e);
  }
  return (isAnswerPromise(next) ? next : PromiseResolve(next)) as Promise<ReadManyResult<T>>;
}
