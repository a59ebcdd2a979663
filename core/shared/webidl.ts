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
  if (!isObject(value)) throw new NativeTypeError(`${context} must be an object`);
  return value as Record<PropertyKey, unknown>;
}

/** A callback function member: must be callable. */
export function convertCallback<T extends Callable>(value: unknown, context: string): T {
  if (typeof value !== "function") throw new NativeTypeError(`${context} must be a function`);
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
    throw new NativeTypeError(`${context} must be a finite number`);
  }
  x = MathTrunc(x);
  if (x < 0 || x > MAX_SAFE_INTEGER) {
    throw new NativeTypeError(`${context} is outside the accepted range of 0 to ${MAX_SAFE_INTEGER}`);
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

export function rangeError(message: string): RangeError {
  return new NativeRangeError(message);
}

export function typeError(message: string): TypeError {
  return new NativeTypeError(message);
}
