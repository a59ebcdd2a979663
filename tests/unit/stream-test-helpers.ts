/**
 * Helpers shared by the consumer, batched-read and helper tests (not a test file itself).
 * @module
 */
import * as assert from "uvu/assert";
import { ReadableStream, type ReadableStreamDefaultController } from "../../mod.ts";

/** The reason `promise` rejects with; fails the test if it fulfills. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.unreachable("expected a rejection");
}

/** What {@link tracked} returns. */
export interface Tracked<T> {
  stream: ReadableStream<T>;
  cancels: unknown[];
  controller(): ReadableStreamDefaultController<T>;
  error(e: unknown): void;
}

/** A stream that enqueues `chunks` in start() (and closes unless `close` is false), recording its cancel reasons. */
export function tracked<T>(chunks: T[], close = true): Tracked<T> {
  const cancels: unknown[] = [];
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>({
    start(c) {
      controller = c;
      for (const chunk of chunks) c.enqueue(chunk);
      if (close) c.close();
    },
    cancel(reason) {
      cancels.push(reason);
    },
  });
  return {
    stream,
    cancels,
    controller: (): ReadableStreamDefaultController<T> => controller,
    error: (e: unknown) => controller.error(e),
  };
}
