/**
 * Read requests that settle a promise handed to user code (the ones `reader.read()` creates when no
 * data is buffered). Internal consumers (pipe, tee, iteration) use their own persistent requests.
 * @module
 */
import { NativePromise } from "../shared/primordials.ts";
import type { ReadIntoRequest, ReadRequest } from "./stream-internal.ts";

/** A ReadableStreamReadResult as a plain object. */
export type ReadResult<T> = { done: false; value: T } | { done: true; value: T | undefined };

export class PromiseReadRequest implements ReadRequest, ReadIntoRequest {
  readonly promise: Promise<ReadResult<unknown>>;
  #resolve!: (v: ReadResult<unknown>) => void;
  #reject!: (e: unknown) => void;

  constructor() {
    this.promise = new NativePromise((res, rej) => {
      this.#resolve = res;
      this.#reject = rej;
    });
  }

  chunkSteps(chunk: unknown): void {
    this.#resolve({ value: chunk, done: false });
  }

  closeSteps(chunk?: unknown): void {
    this.#resolve({ value: chunk, done: true });
  }

  errorSteps(e: unknown): void {
    this.#reject(e);
  }
}
