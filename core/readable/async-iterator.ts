/**
 * The ReadableStream async iterator (Streams §4.2.5 and WebIDL asynchronous iterator objects).
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import {
  NativePromise,
  ObjectGetPrototypeOf,
  ObjectSetPrototypeOf,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  queueMicrotask,
} from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import { type DefaultControllerInternal, RunOwedPullReaction, TakeOwedPullReaction } from "./default-controller.ts";
import {
  ReadableStreamDefaultReaderRead,
  ReadableStreamReaderGenericCancel,
  ReadableStreamReaderRelease,
} from "./reader-ops.ts";
import { NO_CHUNK, READABLE, type ReaderInternal, type ReadRequest } from "./stream-internal.ts";

const END = Symbol("end of iteration");
const RESOLVED: Promise<void> = PromiseResolve(undefined);

class IteratorState {
  readonly reader: ReaderInternal;
  readonly preventCancel: boolean;
  ongoing: Promise<IteratorResult<unknown>> | null = null;
  finished = false;
  pendingChunk: unknown = undefined;
  /** FP-ITER-MERGE: the controller whose pull reaction readSyncOwingPullReaction() left to run first, if any. */
  pullReaction: DefaultControllerInternal | undefined = undefined;
  /** Delivers the pending chunk (after the owed pull reaction): one bound function per iterator. */
  readonly deliver = (): IteratorResult<unknown> => {
    const reaction = this.pullReaction;
    if (reaction !== undefined) {
      this.pullReaction = undefined;
      RunOwedPullReaction(reaction);
    }
    const chunk = this.pendingChunk;
    this.pendingChunk = undefined;
    this.ongoing = null;
    return { value: chunk, done: false };
  };
  constructor(reader: ReaderInternal, preventCancel: boolean) {
    this.reader = reader;
    this.preventCancel = preventCancel;
  }
}

/**
 * A read request that settles a next() promise directly (FP-ITER): one promise per next() instead of the
 * spec's intermediate promise, read request and reaction. The result is still delivered one reaction job
 * after the read request settles, so it lands at the same point relative to other jobs as in the spec.
 */
class IterReadRequest implements ReadRequest {
  readonly promise: Promise<IteratorResult<unknown>>;
  readonly #state: IteratorState;
  #resolve!: (v: IteratorResult<unknown>) => void;
  #reject!: (e: unknown) => void;
  constructor(state: IteratorState) {
    this.#state = state;
    this.promise = new NativePromise((res, rej) => {
      this.#resolve = res;
      this.#reject = rej;
    });
  }
  chunkSteps(chunk: unknown): void {
    queueMicrotask(() => {
      const state = this.#state;
      state.ongoing = null; // WebIDL fulfill/reject steps clear it unconditionally
      this.#resolve({ value: chunk, done: false });
    });
  }
  closeSteps(): void {
    const state = this.#state;
    ReadableStreamReaderRelease(state.reader);
    queueMicrotask(() => {
      state.ongoing = null; // WebIDL fulfill/reject steps clear it unconditionally
      state.finished = true;
      this.#resolve({ value: undefined, done: true });
    });
  }
  errorSteps(e: unknown): void {
    const state = this.#state;
    ReadableStreamReaderRelease(state.reader);
    queueMicrotask(() => {
      state.ongoing = null; // WebIDL fulfill/reject steps clear it unconditionally
      state.finished = true;
      this.#reject(e);
    });
  }
}

/** "Get the next iteration result" (§4.2.5). */
function getNextIterationResult(state: IteratorState): Promise<unknown> {
  const reader = state.reader;
  return new NativePromise((resolve, reject) => {
    const request: ReadRequest = {
      chunkSteps: (chunk) => resolve(chunk),
      closeSteps: () => {
        ReadableStreamReaderRelease(reader);
        resolve(END);
      },
      errorSteps: (e) => {
        ReadableStreamReaderRelease(reader);
        reject(e);
      },
    };
    ReadableStreamDefaultReaderRead(reader, request);
  });
}

function nextSteps(state: IteratorState): Promise<IteratorResult<unknown>> {
  if (state.finished) return PromiseResolve({ value: undefined, done: true });
  return PromisePrototypeThen(
    getNextIterationResult(state),
    (next: unknown): IteratorResult<unknown> => {
      state.ongoing = null;
      if (next === END) {
        state.finished = true;
        return { value: undefined, done: true };
      }
      return { value: next, done: false };
    },
    (reason: unknown): never => {
      state.ongoing = null;
      state.finished = true;
      throw reason;
    },
  );
}

/** The asynchronous iterator return steps (§4.2.5). */
function returnSteps(state: IteratorState, value: unknown): Promise<unknown> {
  if (state.finished) return PromiseResolve({ value, done: true });
  state.finished = true;
  const reader = state.reader;
  if (!state.preventCancel) {
    const result = ReadableStreamReaderGenericCancel(reader, value);
    ReadableStreamReaderRelease(reader);
    return result;
  }
  ReadableStreamReaderRelease(reader);
  return PromiseResolve(undefined);
}

let createIterator: (state: IteratorState) => ReadableStreamAsyncIterator;

/** The async iterator returned by ReadableStream's values() and [Symbol.asyncIterator](). */
export class ReadableStreamAsyncIterator<R = unknown> {
  #state: IteratorState;

  private constructor(state: IteratorState) {
    this.#state = state;
  }

  static {
    createIterator = (state) => new ReadableStreamAsyncIterator(state);
  }

  /** Reads the next chunk. */
  next(): Promise<IteratorResult<R, undefined>> {
    if (typeof this !== "object" || this === null || !(#state in this)) {
      return PromiseReject(typeError("Illegal invocation: not a ReadableStream async iterator"));
    }
    const state = this.#state;
    const ongoing = state.ongoing;
    if (ongoing === null && !state.finished) {
      // FP-ITER: with a chunk already queued and no call in flight, the next result is known now; it
      // resolves without the read request, the intermediate promise and its reaction.
      const stream = state.reader.stream;
      if (stream !== undefined && stream.state === READABLE) {
        stream.disturbed = true;
        const chunk = stream.readSyncOwingPullReaction();
        if (chunk !== NO_CHUNK) {
          // Delivered one reaction job later, as the spec's reaction to the read would: pull() timing after
          // a next() is observable (the differential fuzz test checks it).
          // Only one such result can be pending (a second next() chains on `ongoing`), so the chunk waits
          // in the state and one bound function per iterator delivers it: no allocation but the promise.
          const reaction = !stream.isByte && TakeOwedPullReaction(stream as DefaultControllerInternal)
            ? stream as DefaultControllerInternal
            : undefined;
          if (state.ongoing !== null) {
            // A next() or return() called from inside the pull() this read made has set `ongoing`, and a
            // next() may be using the pending-chunk slot: this result is delivered on its own.
            const p = PromisePrototypeThen(RESOLVED, (): IteratorResult<unknown> => {
              if (reaction !== undefined) RunOwedPullReaction(reaction); // FP-ITER-MERGE
              state.ongoing = null;
              return { value: chunk, done: false };
            });
            state.ongoing = p;
            return p as Promise<IteratorResult<R, undefined>>;
          }
          state.pendingChunk = chunk;
          // FP-ITER-MERGE: the pull reaction job and the delivery job, adjacent, run as one job.
          state.pullReaction = reaction;
          const p = PromisePrototypeThen(RESOLVED, state.deliver) as Promise<IteratorResult<unknown>>;
          state.ongoing = p;
          return p as Promise<IteratorResult<R, undefined>>;
        }
      }
    }
    if (ongoing === null) {
      // FP-ITER: one promise per next(), settled directly by the read request; `ongoing` is cleared when the
      // request settles instead of one reaction later.
      if (state.finished) return PromiseResolve({ value: undefined, done: true });
      const request = new IterReadRequest(state);
      state.ongoing = request.promise;
      ReadableStreamDefaultReaderRead(state.reader, request);
      return request.promise as Promise<IteratorResult<R, undefined>>;
    }
    const step = (): Promise<IteratorResult<unknown>> => nextSteps(state);
    state.ongoing = ongoing !== null ? PromisePrototypeThen(ongoing, step, step) : nextSteps(state);
    return state.ongoing as Promise<IteratorResult<R, undefined>>;
  }

  /** Async iterators are async iterable (inherited from %AsyncIteratorPrototype%). */
  declare [Symbol.asyncIterator]: () => ReadableStreamAsyncIterator<R>;

  /** Stops iterating; cancels the stream unless preventCancel was given. */
  return(value: unknown = undefined): Promise<IteratorResult<R, undefined>> {
    if (typeof this !== "object" || this === null || !(#state in this)) {
      return PromiseReject(typeError("Illegal invocation: not a ReadableStream async iterator"));
    }
    const state = this.#state;
    const ongoing = state.ongoing;
    const step = (): Promise<unknown> => returnSteps(state, value);
    const after = ongoing !== null ? PromisePrototypeThen(ongoing, step, step) : returnSteps(state, value);
    state.ongoing = after as Promise<IteratorResult<unknown>>;
    return PromisePrototypeThen(after, () => ({ value, done: true })) as Promise<IteratorResult<R, undefined>>;
  }
}
// The prototype has exactly `next` and `return`; `return` takes one argument in WebIDL.
Reflect.deleteProperty(ReadableStreamAsyncIterator.prototype, "constructor");
Object.defineProperty(ReadableStreamAsyncIterator.prototype.return, "length", { value: 1 });
defineInterface(ReadableStreamAsyncIterator, "ReadableStream AsyncIterator");
const AsyncIteratorPrototype = ObjectGetPrototypeOf(ObjectGetPrototypeOf(async function* () {}).prototype) as object;
ObjectSetPrototypeOf(ReadableStreamAsyncIterator.prototype, AsyncIteratorPrototype);

/** Creates the iterator for a reader already acquired on the stream. */
export function CreateReadableStreamAsyncIterator(
  reader: ReaderInternal,
  preventCancel: boolean,
): ReadableStreamAsyncIterator {
  return createIterator(new IteratorState(reader, preventCancel));
}
