/**
 * Extensions a runtime puts on its own stream classes, made for ours (the kit's side of a runtime's patch
 * step; the runtime's adapter decides which it installs):
 *
 * - `readManyOf(reader)`: Bun's `ReadableStreamDefaultReader.prototype.readMany()` for one of our default
 *   readers;
 * - `registerSourceType(tx, type, maker)`: an underlying-source `type` of the runtime's own (Bun's
 *   `"direct"`) made by the runtime while the patch is on;
 * - `registerNativeReaders(tx)`: `new ReadableStreamDefaultReader(native)` and
 *   `new ReadableStreamBYOBReader(native)` of a native stream make its native reader while the patch is on.
 * @module
 */
import {
  type BatchAnswer,
  batchReaderOf,
  type DefaultReaderLike,
  drainQueuedOf,
  foreignReaders,
  type ReadableSourceTypeMaker,
  readableSourceTypes,
} from "../../core/internal.ts";
import { isNativeReadable, Native, noop } from "./natives.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** What a Bun-shaped `readMany()` answers with. */
export interface ReadManyAnswer {
  /** The chunks read (none once closed). */
  value: unknown[];
  /** How many chunks were taken from the queue (the first chunk of a read that waited was not queued). */
  size: number;
  /** Whether the stream has closed. */
  done: boolean;
}

/**
 * Bun's `readMany()` for our default reader `reader`: every chunk queued now, taken in one step and answered
 * synchronously, with no pull after it (as Bun's: the next read pulls); when none is queued, a promise of the next chunk and of what is queued when it is answered
 * (a read that waits answers with the chunk it gets, so the source is pulled as for one `read()`);
 * `{ value: [], size: 0, done: true }` at once when closed. An errored stream throws its stored error at
 * once, and a released reader a TypeError.
 */
export function readManyOf(reader: DefaultReaderLike<unknown>): ReadManyAnswer | Promise<ReadManyAnswer> {
  const batches = batchReaderOf(reader, "readMany()");
  // As Bun's: what is queued is taken with no pull after it (the next readMany() pulls).
  const queued = drainQueuedOf(reader);
  if (queued !== undefined) return { value: queued, size: queued.length, done: false };
  let waited = false;
  let thrown: { error: unknown } | undefined;
  const answer: BatchAnswer<ReadManyAnswer> = {
    chunks: (value) => ({ value, size: waited ? value.length - 1 : value.length, done: false }),
    end: () => ({ value: [], size: 0, done: true }),
    error(error) {
      if (!waited) thrown = { error };
    },
    hold: () => false,
  };
  const next = batches.readAs(answer);
  waited = true;
  if (thrown !== undefined) {
    (next as Promise<unknown>).then(undefined, noop);
    throw thrown.error;
  }
  if (!(next instanceof Promise)) return next;
  // As Bun's: a read that waited also takes what is queued by the time it is answered.
  return next.then((result) => {
    const more = result.done ? undefined : drainQueuedOf(reader);
    if (more !== undefined) {
      for (let i = 0; i < more.length; i++) result.value.push(more[i]);
      result.size += more.length;
    }
    return result;
  });
}

/**
 * Makes `new ReadableStream({ type, ... })` of ours return `maker(source, strategy)` while the patch of `tx`
 * is on (the standard's TypeError again once it is undone).
 */
export function registerSourceType(tx: PatchTransaction, type: string, maker: ReadableSourceTypeMaker): void {
  tx.defineValue(readableSourceTypes, type, maker);
}

/**
 * While the patch of `tx` is on, our reader classes given a native stream (which the runtime hands out where
 * it keeps its own streams, e.g. Bun's bodies and `Bun.file().stream()`) return the native stream's own
 * reader, as the runtime's classes would: `instanceof` the patched globals, with the runtime's errors for a
 * locked stream or a BYOB reader of a default stream.
 */
export function registerNativeReaders(tx: PatchTransaction): void {
  const getReader = Native.ReadableStream.prototype.getReader as (this: unknown, options?: object) => object;
  tx.defineValue(
    foreignReaders,
    "make",
    (stream: object, byob: boolean) =>
      isNativeReadable(stream) ? getReader.call(stream, byob ? { mode: "byob" } : undefined) : undefined,
  );
}
