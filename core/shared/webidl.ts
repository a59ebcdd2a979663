/**
 * The WebIDL conversions the Streams Standard's IDL needs, with the spec's TypeError/RangeError.
 * @module
 */
import { type Callable, MathTrunc, NativeRangeError, NativeTypeError, NumberIsNaN } from "./primordials.ts";

export function isObject(x: unknown): x is object {
  return (typeof x === "object" && x !== null) || typeof x === "function";
}

/** Converts a dictionary argument: undefined/null become an empty dictionary, non-objects throw. */
export function convertDictionary(value: unknown, context: string): Record<PropertyKey, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw typeError(`${context} must be an object`);
  return value as Record<PropertyKey, unknown>;
}

/** A callback function member: must be callable. */
export function convertCallback<T extends Callable>(value: unknown, context: string): T {
  if (typeof value !== "function") throw typeError(`${context} must be a function`);
  return value as T;
}

/** `unrestricted double`. */
export function convertUnrestrictedDouble(value: unknown): number {
  return +(value as number);
}

/** 2^53 − 1, fixed here: the global `Number` is looked up at call time and script can replace it. */
const MAX_SAFE_INTEGER = 9007199254740991;

/** `[EnforceRange] unsigned long long`. */
export function convertEnforceRangeULongLong(value: unknown, context: string): number {
  let x = +(value as number);
  if (NumberIsNaN(x) || x === Infinity || x === -Infinity) {
    throw typeError(`${context} must be a finite number`);
  }
  x = MathTrunc(x);
  if (x < 0 || x > MAX_SAFE_INTEGER) {
    throw typeError(`${context} is outside the accepted range of 0 to ${MAX_SAFE_INTEGER}`);
  }
  return x === 0 ? 0 : x; // normalise -0
}

/** `boolean`. */
export function convertBoolean(value: unknown): boolean {
  return !!value;
}

/** `DOMString` (ToString; throws on symbols as the spec does). */
export function convertDOMString(value: unknown): string {
  return `${value as string}`;
}

/**
 * A runtime adapter's view of the errors the core raises (set only by an adapter's global patch, through its
 * transaction): `decorate` is called with every TypeError and RangeError the core creates, before it is thrown
 * or used to reject, e.g. to give it the `code` the runtime's own streams would (Node.js: `ERR_INVALID_STATE`).
 */
export const errorHooks: { decorate: ((error: TypeError | RangeError) => void) | undefined } = {
  decorate: undefined,
};

/** `error`, after {@link errorHooks} saw it. */
function decorated<E extends TypeError | RangeError>(error: E): E {
  errorHooks.decorate?.(error);
  return error;
}

/** A RangeError of the core (see {@link errorHooks}). */
export function rangeError(message: string): RangeError {
  return decorated(new NativeRangeError(message));
}

/** A TypeError of the core (see {@link errorHooks}). */
export function typeError(message: string): TypeError {
  return decorated(new NativeTypeError(message));
}
