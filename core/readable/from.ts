/**
 * ReadableStreamFromIterable (Streams §4.9.1) as the standard has it since July 2026 (whatwg/streams#1372): the
 * argument is a Web IDL `async_sequence<any>` (Web IDL §3.2.x "Async sequences"), so it must be an object with
 * an @@asyncIterator or @@iterator method (a string is a TypeError, no longer its code points); the stream
 * opens it, gets each next value and closes it with Web IDL's async iterator operations, with the
 * async-from-sync iterator steps of ECMAScript for sync iterables.
 * @module
 */
import {
  type Callable,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  ReflectApply,
  SymbolAsyncIterator,
  SymbolIterator,
} from "../shared/primordials.ts";
import { type AlgorithmResult, promiseResolvedWith } from "../shared/promise.ts";
import { isObject, typeError } from "../shared/webidl.ts";
import { CreateReadableStream } from "./create.ts";
import {
  type DefaultControllerInternal,
  ReadableStreamDefaultControllerClose,
  ReadableStreamDefaultControllerEnqueue,
} from "./default-controller.ts";
import type { SourceAlgorithms } from "./source-algorithms.ts";
import type { ReadableStreamInternal } from "./stream-internal.ts";

interface IteratorRecord {
  iterator: object;
  next: unknown;
  sync: boolean;
}

/** Names for error messages, so that none is made by calling the (replaceable) global String. */
function keyName(key: symbol | string): string {
  if (key === SymbolAsyncIterator) return "Symbol.asyncIterator";
  if (key === SymbolIterator) return "Symbol.iterator";
  return typeof key === "string" ? key : "the method";
}

function GetMethod(obj: unknown, key: symbol | string): Callable | undefined {
  const fn = (obj as Record<PropertyKey, unknown>)[key];
  if (fn === undefined || fn === null) return undefined;
  if (typeof fn !== "function") throw typeError(`${keyName(key)} is not a function`);
  return fn;
}

function GetIteratorFromMethod(obj: unknown, method: Callable, sync: boolean): IteratorRecord {
  const iterator = ReflectApply(method, obj, []);
  if (!isObject(iterator)) throw typeError("The iterator method must return an object");
  return { iterator, next: (iterator as { next: unknown }).next, sync };
}

const NOT_ITERABLE = "ReadableStream.from() requires an async iterable or iterable object";

/** Whether a string is taken as the sequence of its code points (the standard before whatwg/streams#1372). */
let takesStrings = false;

/**
 * Makes ReadableStream.from() take a string as the standard did before whatwg/streams#1372 (one chunk per code
 * point, by its @@iterator), or not (`false`, the standard's current text); returns the setting it replaces.
 * For a runtime's global patch only: while our class stands in for a runtime whose own from() still takes
 * strings (Node.js 26, Bun 1.4), code written for that runtime keeps working. Not public API.
 */
export function setReadableStreamFromTakesStrings(on: boolean): boolean {
  const previous = takesStrings;
  takesStrings = on;
  return previous;
}

/**
 * Converts `V` to an IDL async_sequence (Web IDL: an object, its @@asyncIterator method, else its @@iterator
 * method) and opens it (GetIteratorFromMethod; a sync iterator is used through the async-from-sync steps).
 */
function OpenAsyncSequence(V: unknown): IteratorRecord {
  if (typeof V === "string" && takesStrings) {
    const method = GetMethod(V, SymbolIterator);
    if (method !== undefined) return GetIteratorFromMethod(V, method, true);
  }
  if (!isObject(V)) {
    throw typeError(
      typeof V === "string"
        ? "ReadableStream.from() takes no string since 2026: pass [text]"
        : V === undefined || V === null
        ? "ReadableStream.from() takes a non-null value"
        : NOT_ITERABLE,
    );
  }
  const method = GetMethod(V, SymbolAsyncIterator);
  if (method !== undefined) return GetIteratorFromMethod(V, method, false);
  const syncMethod = GetMethod(V, SymbolIterator);
  if (syncMethod === undefined) throw typeError(NOT_ITERABLE);
  return GetIteratorFromMethod(V, syncMethod, true);
}

function closeSyncIterator(iterator: object): void {
  try {
    const ret = GetMethod(iterator, "return");
    if (ret !== undefined) ReflectApply(ret, iterator, []);
  } catch {
    // IteratorClose with a throw completion keeps the original error.
  }
}

/** %AsyncFromSyncIteratorPrototype%.next / AsyncFromSyncIteratorContinuation. */
function asyncFromSyncContinuation(result: unknown, iterator: object, closeOnRejection: boolean): Promise<unknown> {
  if (!isObject(result)) return PromiseReject(typeError("The iterator result must be an object"));
  let done: boolean;
  let valueWrapper: Promise<unknown>;
  try {
    done = !!(result as IteratorResult<unknown>).done;
    const value = (result as IteratorResult<unknown>).value;
    try {
      valueWrapper = PromiseResolve(value);
    } catch (e) {
      if (!done && closeOnRejection) closeSyncIterator(iterator);
      throw e;
    }
  } catch (e) {
    return PromiseReject(e);
  }
  return PromisePrototypeThen(
    valueWrapper,
    (v: unknown) => ({ value: v, done }),
    done || !closeOnRejection ? undefined : (e: unknown) => {
      closeSyncIterator(iterator);
      throw e;
    },
  );
}

/**
 * %AsyncFromSyncIteratorPrototype%.next (ECMAScript §27.1.6.2.1): never throws; an abrupt IteratorNext (next()
 * throws, or returns a non-object) becomes a rejected promise (IfAbruptRejectPromise), which then takes the
 * same "promise resolved with" path in pull() as any other result.
 */
function asyncFromSyncNext(record: IteratorRecord): Promise<unknown> {
  let result: unknown;
  try {
    result = ReflectApply(record.next as Callable, record.iterator, []);
  } catch (e) {
    return PromiseReject(e);
  }
  return asyncFromSyncContinuation(result, record.iterator, true);
}

/**
 * %AsyncFromSyncIteratorPrototype%.return (ECMAScript §27.1.6.2.2): the method exists on the async-from-sync
 * iterator whether or not the sync iterator has one (then the result is { value, done: true }); never throws.
 */
function asyncFromSyncReturn(iterator: object, value: unknown): Promise<unknown> {
  let result: unknown;
  try {
    const returnMethod = GetMethod(iterator, "return");
    if (returnMethod === undefined) return PromiseResolve({ value, done: true });
    result = ReflectApply(returnMethod, iterator, [value]);
  } catch (e) {
    return PromiseReject(e);
  }
  if (!isObject(result)) return PromiseReject(typeError("The iterator's return() must return an object"));
  return asyncFromSyncContinuation(result, iterator, false);
}

class FromIterableSource implements SourceAlgorithms {
  readonly #record: IteratorRecord;
  stream!: DefaultControllerInternal;
  constructor(record: IteratorRecord) {
    this.#record = record;
  }

  pull(): AlgorithmResult {
    const record = this.#record;
    // Getting the next value (Web IDL): IteratorNext; an abrupt completion (only an async iterator's next() can
    // give one: the async-from-sync iterator's never throws) is a rejected promise.
    let nextResult: unknown;
    if (record.sync) {
      nextResult = asyncFromSyncNext(record);
    } else {
      try {
        nextResult = ReflectApply(record.next as Callable, record.iterator, []);
      } catch (e) {
        return PromiseReject(e);
      }
      if (!isObject(nextResult)) return PromiseReject(typeError("The iterator's next() must return an object"));
    }
    // FP-FROM-NEXT: the fulfillment steps of Web IDL's "get the next value" (check the result, take `done`,
    // then `value`) and Streams §4.9.1 pull's reaction to that value (close or enqueue) run as one reaction; a
    // thrown TypeError rejects the pull promise, which errors the stream at the job the standard's rejection
    // reaction would.
    return PromisePrototypeThen(promiseResolvedWith(nextResult), (iterResult: unknown) => {
      if (!isObject(iterResult)) {
        throw typeError("The promise returned by the iterator's next() must fulfill with an object");
      }
      const c = this.stream;
      if ((iterResult as IteratorResult<unknown>).done) ReadableStreamDefaultControllerClose(c);
      else ReadableStreamDefaultControllerEnqueue(c, (iterResult as IteratorResult<unknown>).value);
    });
  }

  cancel(reason: unknown): AlgorithmResult {
    const { iterator, sync } = this.#record;
    // Streams §4.9.1 cancelAlgorithm: closing the async iterator (Web IDL); for a sync iterable the iterator is
    // the async-from-sync one, whose return() always exists.
    let returnResult: unknown;
    if (sync) {
      returnResult = asyncFromSyncReturn(iterator, reason);
    } else {
      try {
        const returnMethod = GetMethod(iterator, "return");
        if (returnMethod === undefined) return undefined;
        returnResult = ReflectApply(returnMethod, iterator, [reason]);
      } catch (e) {
        return PromiseReject(e);
      }
    }
    return PromisePrototypeThen(promiseResolvedWith(returnResult), (iterResult: unknown) => {
      if (!isObject(iterResult)) {
        throw typeError("The promise returned by the iterator's return() must fulfill with an object");
      }
      return undefined;
    });
  }
}

/** ReadableStreamFromIterable(asyncIterable), with the conversion of `asyncIterable` to an async_sequence. */
export function ReadableStreamFromIterable(asyncIterable: unknown): ReadableStreamInternal {
  const source = new FromIterableSource(OpenAsyncSequence(asyncIterable));
  const stream = CreateReadableStream(undefined, source, 0);
  source.stream = stream;
  return stream;
}
