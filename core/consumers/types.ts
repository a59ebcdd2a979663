/**
 * Public types of the consumers and batched reads.
 * @module
 */
/**
 * A ReadableStream of fusestreams or of the runtime (fusestreams' streams have the global interface): what the
 * consumers, `batches()` and the helpers accept.
 */
export type AnyReadableStream<T = unknown> = globalThis.ReadableStream<T>;

/** A default reader of fusestreams or of the runtime: what `readMany()` accepts. */
export type AnyReadableStreamDefaultReader<T = unknown> = globalThis.ReadableStreamDefaultReader<T>;

/**
 * The result of `readMany()`: every chunk that was available (at least one) with `done: false`, or
 * `done: true` with an empty list once the stream has closed.
 */
export type ReadManyResult<T> = { done: false; value: T[] } | { done: true; value: T[] };

/** Options of `batches()`. */
export interface BatchesOptions {
  /** Leave the stream uncancelled when the loop ends early (`break`, `return`, a throw); only release it. */
  preventCancel?: boolean;
}

/** The iterator `batches()` returns: arrays of chunks; `return()` ends the loop early (and cancels). */
export interface ReadableStreamBatchIterator<T> extends AsyncIterableIterator<T[], undefined> {
  /** The next batch: a non-empty array of chunks, or `done` once the stream has closed. */
  next(): Promise<IteratorResult<T[], undefined>>;
  /** Ends the iteration: cancels the stream with `value` (unless `preventCancel`) and releases it. */
  return(value?: unknown): Promise<IteratorResult<T[], undefined>>;
  /** The iterator itself. */
  [Symbol.asyncIterator](): ReadableStreamBatchIterator<T>;
}
