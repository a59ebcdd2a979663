/**
 * Read requests that settle a promise handed to user code (the ones `reader.read()` creates when no
 * data is buffered). Internal consumers (pipe, tee, iteration) use their own persistent requests.
 * @module
 */
import { NativePromise } from "../shared/primordials.ts";
import { newPendingPromise, pendingReject, pendingResolve, SHARED_EXECUTOR } from "../shared/promise.ts";
import type { ReadIntoRequest, ReadRequest } from "./stream-internal.ts";

/** A ReadableStreamReadResult as a plain object. */
export type ReadResult<T> = { done: false; value: T } | { done: true; value: T | undefined };

/**
 * The read request of a `read()` that has to wait: settles the promise made by its last arm(). A default
 * reader keeps one and arms it again for each read made while it is not waiting (FP-OWN-REQUEST): request
 * objects never reach user code, and every read still gets a new promise.
 */
export class PromiseReadRequest implements ReadRequest, ReadIntoRequest {
  #resolve: ((v: ReadResult<unknown>) => void) | undefined = undefined;
  #reject: ((e: unknown) => void) | undefined = undefined;

  /** Whether a read waits on this request. */
  get armed(): boolean {
    return this.#resolve !== undefined;
  }

  /** Makes the promise of the next read this request settles. */
  arm(): Promise<ReadResult<unknown>> {
    if (SHARED_EXECUTOR) {
      const promise = newPendingPromise<ReadResult<unknown>>();
      this.#resolve = pendingResolve;
      this.#reject = pendingReject;
      return promise;
    }
    return new NativePromise((res, rej) => {
      this.#resolve = res;
      this.#reject = rej;
    });
  }

  chunkSteps(chunk: unknown): void {
    const resolve = this.#resolve!;
    this.#resolve = this.#reject = undefined;
    resolve({ value: chunk, done: false });
  }

  closeSteps(chunk?: unknown): void {
    const resolve = this.#resolve!;
    this.#resolve = this.#reject = undefined;
    resolve({ value: chunk, done: true });
  }

  errorSteps(e: unknown): void {
    const reject = this.#reject!;
    this.#resolve = this.#reject = undefined;
    reject(e);
  }
}
