/**
 * Brand check for ReadableStream objects from modules that cannot import the class itself
 * (readers, which ReadableStream imports). The class registers its accessor when it is defined.
 * @module
 */
import { typeError } from "../shared/webidl.ts";
import type { ReadableStreamInternal } from "./stream-internal.ts";

let accessor: ((x: unknown) => ReadableStreamInternal | undefined) | undefined;

export function registerReadableStreamBrand(fn: (x: unknown) => ReadableStreamInternal | undefined): void {
  accessor = fn;
}

/** The internal state of a ReadableStream, or undefined if `x` is not one. */
export function readableStreamInternalOrUndefined(x: unknown): ReadableStreamInternal | undefined {
  return accessor!(x);
}

/** The internal state of a ReadableStream; throws a TypeError naming `context` otherwise. */
export function toReadableStreamInternal(x: unknown, context: string): ReadableStreamInternal {
  const s = accessor!(x);
  if (s === undefined) throw typeError(`${context} must be a ReadableStream`);
  return s;
}
