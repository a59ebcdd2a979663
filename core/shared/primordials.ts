/**
 * Built-ins captured once at module load, so that nothing observable goes through globals or
 * prototype methods that user code can patch later (`Promise.prototype.then`, `Reflect.apply`, ...).
 * @module
 */

export const ReflectApply: typeof Reflect.apply = Reflect.apply;
export const ObjectDefineProperty: typeof Object.defineProperty = Object.defineProperty;
export const ObjectDefineProperties: typeof Object.defineProperties = Object.defineProperties;
export const ObjectGetOwnPropertyDescriptor: typeof Object.getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const ObjectSetPrototypeOf: typeof Object.setPrototypeOf = Object.setPrototypeOf;
export const ObjectGetPrototypeOf: typeof Object.getPrototypeOf = Object.getPrototypeOf;
export const SymbolAsyncIterator: typeof Symbol.asyncIterator = Symbol.asyncIterator;
export const SymbolIterator: typeof Symbol.iterator = Symbol.iterator;
export const SymbolToStringTag: typeof Symbol.toStringTag = Symbol.toStringTag;
export const NumberIsNaN: typeof Number.isNaN = Number.isNaN;
export const MathMin: typeof Math.min = Math.min;
export const MathTrunc: typeof Math.trunc = Math.trunc;
export const MathFloor: typeof Math.floor = Math.floor;

/**
 * Whether the engine is JavaScriptCore (Bun), told apart by the own numeric `line` property it gives every
 * Error. Some hot paths pick the call form each engine runs fastest (see `uncurryThis` here, and
 * REUSE_ARGUMENT_LISTS / SHARED_EXECUTOR in promise.ts); every form calls the same function the same way.
 */
export const JAVASCRIPTCORE: boolean =
  typeof Reflect.getOwnPropertyDescriptor(new Error("probe"), "line")?.value === "number";

/**
 * Any function, as captured built-ins and user callbacks are kept: each is called with `Reflect.apply` (or
 * an uncurried `call`) whatever its signature, so no narrower type would be checked anywhere.
 */
// deno-lint-ignore ban-types
export type Callable = Function;

const FunctionPrototypeCall = Function.prototype.call;
const FunctionPrototypeBind = Function.prototype.bind;
const NO_ARGUMENTS: never[] = [];
/**
 * `fn` as a function that takes its `this` first: `uncurryThis(f)(x, ...args)` calls `f` as
 * `ReflectApply(f, x, args)` does. On V8 it is `Function.prototype.call` bound to `fn`, whose calls compile to a
 * direct call of `fn` (a getter into a field load) with no arguments array: the array literal of a ReflectApply
 * is allocated when the call sits in (or is inlined into) a try block. JavaScriptCore runs bound calls slower,
 * so there it stays a ReflectApply (with one shared empty list when `fn` takes no arguments; ReflectApply only
 * reads the list).
 */
export function uncurryThis<T, R>(fn: (this: T) => R): (self: T) => R;
export function uncurryThis<T, A, R>(fn: (this: T, a: A) => R): (self: T, a: A) => R;
export function uncurryThis(fn: Callable): Callable {
  if (!JAVASCRIPTCORE) return ReflectApply(FunctionPrototypeBind, FunctionPrototypeCall, [fn]) as Callable;
  return fn.length === 0
    ? (self: unknown): unknown => ReflectApply(fn, self, NO_ARGUMENTS)
    : (self: unknown, a: unknown): unknown => ReflectApply(fn, self, [a]);
}

export const NativePromise: PromiseConstructor = Promise;
const PromiseResolveFn = Promise.resolve;
const PromiseRejectFn = Promise.reject;
const PromiseThen = Promise.prototype.then;
/** `Promise.prototype.then` as it was at load, to tell whether a lookup of `then` still finds it. */
export const OriginalPromiseThen: typeof Promise.prototype.then = PromiseThen;

/** WebIDL "a promise resolved with x" (PromiseResolve(%Promise%, x)). */
export function PromiseResolve<T>(value: T | PromiseLike<T>): Promise<T> {
  return ReflectApply(PromiseResolveFn, NativePromise, [value]) as Promise<T>;
}

/** WebIDL "a promise rejected with r". */
export function PromiseReject<T = never>(reason: unknown): Promise<T> {
  return ReflectApply(PromiseRejectFn, NativePromise, [reason]) as Promise<T>;
}

/** PerformPromiseThen without looking up a (patchable) `then`. */
export function PromisePrototypeThen<T, R1 = T, R2 = never>(
  promise: Promise<T>,
  onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | undefined,
  onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | undefined,
): Promise<R1 | R2> {
  return ReflectApply(PromiseThen, promise, [onFulfilled, onRejected]) as Promise<R1 | R2>;
}

const RESOLVED: Promise<void> = ReflectApply(PromiseResolveFn, NativePromise, [undefined]) as Promise<void>;
const hostQueueMicrotask: ((cb: () => void) => void) | undefined = globalThis.queueMicrotask;
/**
 * Queues `cb` as a microtask: with the host's queueMicrotask where it is built in (Bun), else as a promise
 * reaction job on an already-fulfilled promise (the exact job the spec's "upon fulfillment" of a resolved
 * promise queues), which is cheaper than a queueMicrotask written in JavaScript (Node wraps each callback
 * in an AsyncResource; Deno validates and forwards). Both land on the same job queue in the same order.
 */
export const queueMicrotask: (cb: () => void) => void = typeof hostQueueMicrotask === "function" &&
    /\{\s*\[native code\]\s*\}\s*$/.test(ReflectApply(Function.prototype.toString, hostQueueMicrotask, []) as string)
  ? hostQueueMicrotask
  : (cb: () => void): void => {
    ReflectApply(PromiseThen, RESOLVED, [cb]);
  };

export const NativeAbortController: typeof AbortController = globalThis.AbortController;
export const NativeArray: ArrayConstructor = Array;
export const NativeArrayBuffer: ArrayBufferConstructor = ArrayBuffer;
export const NativeUint8Array: Uint8ArrayConstructor = Uint8Array;
export const NativeDataView: DataViewConstructor = DataView;
export const NativeTypeError: TypeErrorConstructor = TypeError;
export const NativeRangeError: RangeErrorConstructor = RangeError;
