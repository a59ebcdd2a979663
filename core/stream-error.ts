/**
 * Erroring a fusestreams stream from outside, as its controller's `error(e)` would (a fusestreams extra for the
 * runtime kit, not part of the standard): what a runtime's own stream utilities ask of a web stream they were
 * handed, e.g. node:stream's `addAbortSignal(signal, stream)`, which errors the stream's controller when the
 * signal aborts.
 * @module
 */
import { readableStreamInternalOrUndefined } from "./readable/brand.ts";
import { ByteControllerInternal, ReadableByteStreamControllerError } from "./readable/byte-controller.ts";
import { type DefaultControllerInternal, ReadableStreamDefaultControllerError } from "./readable/default-controller.ts";
import { writableStreamInternalOrUndefined } from "./writable/brand.ts";
import { WritableStreamDefaultControllerErrorIfNeeded } from "./writable/stream-internal.ts";

/** Which readable streams {@link errorReadableStream} errors. */
export interface ErrorReadableStreamOptions {
  /** Whether a readable byte stream is errored too (default true); false leaves it as it is. */
  readonly bytes?: boolean;
}

/**
 * Errors the fusestreams ReadableStream `x` with `e` as `controller.error(e)` would
 * (ReadableStreamDefaultControllerError / ReadableByteStreamControllerError: nothing happens unless it is
 * readable). Returns whether `x` was such a stream and was left to its controller's error steps (false for
 * anything else, and for a byte stream when `options.bytes` is false).
 */
export function errorReadableStream(x: unknown, e: unknown, options?: ErrorReadableStreamOptions): boolean {
  const s = readableStreamInternalOrUndefined(x);
  if (s === undefined) return false;
  if (s instanceof ByteControllerInternal) {
    if (options?.bytes === false) return false;
    ReadableByteStreamControllerError(s, e);
    return true;
  }
  ReadableStreamDefaultControllerError(s as DefaultControllerInternal, e);
  return true;
}

/**
 * Errors the fusestreams WritableStream `x` with `e` as `controller.error(e)` would
 * (WritableStreamDefaultControllerErrorIfNeeded: nothing happens unless it is writable). Returns false when
 * `x` is not a fusestreams WritableStream.
 */
export function errorWritableStream(x: unknown, e: unknown): boolean {
  const s = writableStreamInternalOrUndefined(x);
  if (s === undefined) return false;
  WritableStreamDefaultControllerErrorIfNeeded(s, e);
  return true;
}
