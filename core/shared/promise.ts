/**
 * Promise plumbing for the core.
 *
 * `LazyPromise` is a promise slot (a reader's `closed`, a writer's `ready`/`closed`) whose JS Promise is
 * only allocated when user code asks for it. Internal code settles the slot and reads its state directly.
 * Fast path FP-LAZY (core/README.md).
 * @module
 */
import {
  type Callable,
  JAVASCRIPTCORE,
  NativePromise,
  ObjectGetPrototypeOf,
  OriginalPromiseThen,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  queueMicrotask,
  ReflectApply,
} from "./primordials.ts";

export const PENDING = 0;
export const FULFILLED = 1;
export const REJECTED = 2;

function noop(): void {}

/** Marks a promise as handled ("set promise.[[PromiseIsHandled]] to true"). */
export function setPromiseIsHandledToTrue(p: Promise<unknown>): void {
  PromisePrototypeThen(p, undefined, noop);
}

export class LazyPromise {
  state: number = PENDING;
  value: unknown = undefined;
  #handled = false;
  #promise: Promise<undefined> | undefined = undefined;
  #resolve: ((v: undefined) => void) | undefined = undefined;
  #reject: ((e: unknown) => void) | undefined = undefined;
  /** FP-LAZY (release): makes the rejection reason, when the slot was rejected before its promise was made. */
  #reason: (() => unknown) | undefined = undefined;

  /** The JS promise, allocated on first use. */
  get promise(): Promise<undefined> {
    let p = this.#promise;
    if (p === undefined) {
      if (this.state === PENDING) {
        if (SHARED_EXECUTOR) {
          p = newPendingPromise<undefined>();
          this.#resolve = pendingResolve;
          this.#reject = pendingReject;
        } else {
          p = new NativePromise<undefined>((res, rej) => {
            this.#resolve = res;
            this.#reject = rej;
          });
        }
      } else if (this.state === FULFILLED) {
        p = PromiseResolve(undefined);
      } else {
        const reason = this.#reason;
        if (reason !== undefined) {
          this.#reason = undefined;
          this.value = reason();
        }
        p = PromiseReject(this.value);
        if (this.#handled) setPromiseIsHandledToTrue(p);
      }
      this.#promise = p;
    }
    return p;
  }

  resolve(): void {
    if (this.state !== PENDING) return;
    this.state = FULFILLED;
    const r = this.#resolve;
    if (r !== undefined) {
      this.#resolve = this.#reject = undefined;
      r(undefined);
    }
  }

  /** Rejects the slot; `handled` marks the promise as handled as the spec asks at every call site. */
  reject(reason: unknown, handled: boolean): void {
    if (this.state !== PENDING) return;
    this.state = REJECTED;
    this.value = reason;
    this.#handled = handled;
    const r = this.#reject;
    if (r !== undefined) {
      this.#resolve = this.#reject = undefined;
      r(reason);
      if (handled) setPromiseIsHandledToTrue(this.#promise!);
    }
  }

  /**
   * FP-LAZY (release): the slot rejected with the reason `reason()` makes, marked handled, as the spec's "ensure
   * rejected" steps do: a pending promise is rejected, a settled slot gets a new rejected promise. The reason is made
   * when the JS promise is first asked for, or at once for a pending promise already handed out. `value` stays
   * undefined until then: for slots whose reason nothing internal reads (a released reader's or writer's).
   */
  rejectLazily(reason: () => unknown): void {
    if (this.state === PENDING && this.#promise !== undefined) {
      this.reject(reason(), true);
      return;
    }
    this.resetPending();
    this.state = REJECTED;
    this.#handled = true;
    this.#reason = reason;
  }

  /** Replaces the slot with a fresh pending promise ("set x to a new promise"). */
  resetPending(): void {
    this.state = PENDING;
    this.value = undefined;
    this.#handled = false;
    this.#reason = undefined;
    this.#promise = this.#resolve = this.#reject = undefined;
  }

  /** Replaces the slot with a promise resolved with undefined. */
  resetResolved(): void {
    this.resetPending();
    this.state = FULFILLED;
  }

  /** Replaces the slot with a promise rejected with `reason`. */
  resetRejected(reason: unknown, handled: boolean): void {
    this.resetPending();
    this.state = REJECTED;
    this.value = reason;
    this.#handled = handled;
  }
}

/**
 * A start algorithm passed to SetUpWritableStreamDefaultController / SetUpReadableStreamDefaultController by a
 * caller that reacts to the start itself and then calls the controller's start steps (TransformStream).
 */
export function EXTERNAL_START(): undefined {
  return undefined;
}

/** A promise together with its resolving functions. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason: unknown) => void;
}

export function newDeferred<T>(): Deferred<T> {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason: unknown) => void;
  const promise = new NativePromise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The result of an internal algorithm: `undefined` stands for "a promise resolved with undefined"
 * without allocating one (fast path FP-SYNC-ALGO); anything else is a real promise.
 */
export type AlgorithmResult = Promise<unknown> | undefined;

/**
 * "Upon settlement of p": runs `onFulfilled`/`onRejected` as a promise reaction would. A synchronous
 * result (`undefined`) is reacted to with a microtask: the reaction job is queued at the same point the
 * spec's PerformPromiseThen on an already-fulfilled promise would queue it, so ordering is unchanged.
 */
export function uponAlgorithm(
  result: AlgorithmResult,
  onFulfilled: () => void,
  onRejected: (reason: unknown) => void,
): void {
  if (result === undefined) queueMicrotask(onFulfilled);
  else PromisePrototypeThen(result, onFulfilled, onRejected);
}

/** "Upon fulfillment/rejection of p", for real promises. */
export function uponPromise<T>(
  p: Promise<T>,
  onFulfilled: ((value: T) => void) | undefined,
  onRejected?: (reason: unknown) => void,
): void {
  PromisePrototypeThen(p, onFulfilled, onRejected);
}

/** Turns an algorithm result into a real promise (for values handed to user code). */
export function algorithmToPromise(result: AlgorithmResult): Promise<unknown> {
  return result === undefined ? PromiseResolve(undefined) : result;
}

/**
 * Whether hot paths reuse one argument list per callback instead of writing a literal at each Reflect.apply:
 * JavaScriptCore (Bun) allocates the literal on every call, V8 removes it (escape analysis) and runs the reused
 * list slower. Reflect.apply copies the
 * list into the call, so reuse is unobservable either way.
 */
export const REUSE_ARGUMENT_LISTS: boolean = JAVASCRIPTCORE;

/**
 * Whether a pending promise whose resolving functions are kept elsewhere is made with one shared executor
 * (`newPendingPromise`) instead of a closure per promise: JavaScriptCore runs the shared executor faster
 * (about 1.2x for make + resolve + await), V8 the closure (its executor is inlined). Same engine test as
 * REUSE_ARGUMENT_LISTS; the executor is internal either way.
 */
export const SHARED_EXECUTOR: boolean = REUSE_ARGUMENT_LISTS;

/** The resolving functions of the promise `newPendingPromise` made last (read them at once). */
export let pendingResolve: ((v: unknown) => void) | undefined;
export let pendingReject: ((e: unknown) => void) | undefined;
function keepResolvingFunctions(resolve: (v: unknown) => void, reject: (e: unknown) => void): void {
  pendingResolve = resolve;
  pendingReject = reject;
}

/** A new pending promise; its resolving functions are left in `pendingResolve` / `pendingReject`. */
export function newPendingPromise<T>(): Promise<T> {
  return new NativePromise<T>(
    keepResolvingFunctions as (resolve: (v: T) => void, reject: (e: unknown) => void) => void,
  );
}

/**
 * Invokes a user callback as WebIDL does for a callback returning a promise: the result is
 * "a promise resolved with" the return value, and a throw becomes a rejected promise. Returns
 * `undefined` (FP-SYNC-ALGO) when the callback returned undefined synchronously.
 */
export function invokePromiseCallback(
  fn: Callable,
  thisArg: unknown,
  args: unknown[],
): AlgorithmResult {
  let r: unknown;
  try {
    r = ReflectApply(fn, thisArg, args);
  } catch (e) {
    return PromiseReject(e);
  }
  return r === undefined ? undefined : promiseResolvedWith(r);
}

/**
 * invokePromiseCallback for the per-chunk callbacks (pull(controller), write(chunk, controller),
 * transform(chunk, controller)), with FP-CHUNK-PROMISE: an `async` callback's promise is reacted to as it is.
 */
export function invokeChunkCallback(fn: Callable, thisArg: unknown, args: unknown[]): AlgorithmResult {
  let r: unknown;
  try {
    r = ReflectApply(fn, thisArg, args);
  } catch (e) {
    return PromiseReject(e);
  }
  return r === undefined ? undefined : chunkCallbackPromise(fn, r);
}

/** The prototype of every `async function` of this realm, and the promises they return. */
const AsyncFunctionPrototype: object = ObjectGetPrototypeOf(async () => {}) as object;
const NativePromisePrototype: Promise<unknown> = NativePromise.prototype;
/** PromiseResolve(%Promise%, x), bound once: its brand check answers `x` itself for a promise of this realm. */
const promiseResolve: (x: unknown) => Promise<unknown> = NativePromise.resolve.bind(NativePromise);

/**
 * FP-CHUNK-PROMISE (core/README.md): the promise a per-chunk callback's result `r` stands for. "A promise resolved
 * with" `r` (WebIDL's conversion to `Promise<undefined>`) adopts a promise through `then`, two jobs later than `r`
 * itself settles. When `fn` looks like an `async` function of this realm, `then` is still the intrinsic one, and `r`
 * is a native promise of this realm (its prototype, and PromiseResolve's brand check, which answers `r` itself),
 * adopting it would call exactly the reaction-adding `then` the caller calls on `r`: `r` is used as it is, as Node.js
 * does. Anything else, including a trap that throws while this looks, gets the adoption.
 */
function chunkCallbackPromise(fn: Callable, r: unknown): Promise<unknown> {
  try {
    if (
      ObjectGetPrototypeOf(fn) === AsyncFunctionPrototype && NativePromisePrototype.then === OriginalPromiseThen &&
      typeof r === "object" && r !== null && ObjectGetPrototypeOf(r) === NativePromisePrototype
    ) {
      const same = promiseResolve(r);
      if (same === r) return r as Promise<unknown>;
      // Not this realm's promise after all (a Proxy, or a changed `constructor`): the promise PromiseResolve made is
      // dropped, its rejection handled.
      PromisePrototypeThen(same, undefined, noop);
    }
  } catch {
    // A Proxy's trap threw while we looked: the adoption below, which never looked.
  }
  return promiseResolvedWith(r);
}

/**
 * invokePromiseCallback for the per-chunk callbacks (pull(controller), write(chunk, controller),
 * transform(chunk, controller)) on engines that remove a literal argument list (V8): the list is written in
 * the Reflect.apply call itself, so it is removed even when this function is not inlined into its caller,
 * where an argument list passed in as a parameter costs an allocation and a generic spread call.
 */
export function invokePromiseCallback1(fn: Callable, thisArg: unknown, a: unknown): AlgorithmResult {
  let r: unknown;
  try {
    r = ReflectApply(fn, thisArg, [a]);
  } catch (e) {
    return PromiseReject(e);
  }
  return r === undefined ? undefined : chunkCallbackPromise(fn, r);
}

/** invokePromiseCallback1 with two arguments. */
export function invokePromiseCallback2(fn: Callable, thisArg: unknown, a: unknown, b: unknown): AlgorithmResult {
  let r: unknown;
  try {
    r = ReflectApply(fn, thisArg, [a, b]);
  } catch (e) {
    return PromiseReject(e);
  }
  return r === undefined ? undefined : chunkCallbackPromise(fn, r);
}

/**
 * "A promise resolved with x" as the reference implementation and the native implementations realise it:
 * a new promise resolved with x, so a promise or thenable x is adopted through a job (two jobs later than
 * returning x itself). WPT's ordering expectations follow this.
 *
 * An async function that returns x makes exactly that promise: its return resolves the function's new promise
 * with x through the same promise resolve steps as a resolving function (x's `then` looked up at once, a job
 * that calls it), and it costs no executor closure and no pair of resolving functions (FP-RESOLVED-WITH: 15-30 ns
 * less per call on V8 and JavaScriptCore, core/README.md).
 */
export const promiseResolvedWith: (x: unknown) => Promise<unknown> = async (x: unknown): Promise<unknown> => x;

export { PromiseReject, PromiseResolve };
