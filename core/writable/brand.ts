/**
 * Brand check for WritableStream objects from modules that cannot import the class (writers, pipes).
 * @module
 */
import { typeError } from "../shared/webidl.ts";
import type { WritableStreamInternal } from "./stream-internal.ts";

let accessor: ((x: unknown) => WritableStreamInternal | undefined) | undefined;

export function registerWritableStreamBrand(fn: (x: unknown) => WritableStreamInternal | undefined): void {
  accessor = fn;
}

export function writableStreamInternalOrUndefined(x: unknown): WritableStreamInternal | undefined {
  return accessor!(x);
}

export function toWritableStreamInternal(x: unknown, context: string): WritableStreamInternal {
  const s = accessor!(x);
  if (s === undefined) throw typeError(`${context} must be a WritableStream`);
  return s;
}
