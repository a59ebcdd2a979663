/**
 * Acting on a stream from outside its controller and reader (a fusestreams extra, not part of the
 * standard), as a runtime's own code does with its native streams: node:stream's `addAbortSignal()` errors
 * a web stream through the function registered under `Symbol.for("nodejs.webstream.controllerErrorFunction")`,
 * and Deno's `FileHandle` cancels the stream `readableWebStream()` gave out when the file is closed, readers
 * or not (Deno's `WebSocketStream` closes its writable side so when the socket closes). Reached through
 * core/internal.ts only.
 * @module
 */
import { ReadableByteStreamControllerError } from "./readable/byte-controller.ts";
import type { ByteControllerInternal } from "./readable/byte-controller.ts";
import { ReadableStreamDefaultControllerError } from "./readable/default-controller.ts";
import type { DefaultControllerInternal } from "./readable/default-controller.ts";
import { readableStreamInternalOrUndefined } from "./readable/brand.ts";
import { ReadableStreamCancel } from "./readable/stream-internal.ts";
import { errorTransformStream } from "./transform/transform-stream.ts";
import { writableStreamInternalOrUndefined } from "./writable/brand.ts";
import {
  WritableStreamAbort,
  WritableStreamClose,
  WritableStreamCloseQueuedOrInFlight,
  WritableStreamDefaultControllerErrorIfNeeded,
} from "./writable/stream-internal.ts";
import { PromiseResolve } from "./shared/promise.ts";

/**
 * Errors `x` with `e` as its controller would, and returns true: a ReadableStream through
 * ReadableStreamDefaultControllerError or ReadableByteStreamControllerError (nothing happens unless it is
 * readable), a WritableStream through WritableStreamDefaultControllerErrorIfNeeded, a TransformStream
 * through TransformStreamError (both sides). Returns false, changing nothing, when `x` is none of
 * fusestreams' streams.
 */
export function errorStream(x: unknown, e: unknown): boolean {
  const readable = readableStreamInternalOrUndefined(x);
  if (readable !== undefined) {
    if (readable.isByte) ReadableByteStreamControllerError(readable as ByteControllerInternal, e);
    else ReadableStreamDefaultControllerError(readable as DefaultControllerInternal, e);
    return true;
  }
  const writable = writableStreamInternalOrUndefined(x);
  if (writable !== undefined) {
    WritableStreamDefaultControllerErrorIfNeeded(writable, e);
    return true;
  }
  return errorTransformStream(x, e);
}

/**
 * ReadableStreamCancel(x, reason) on the fusestreams ReadableStream `x` whether or not it is locked (its
 * reader's pending reads are answered with done, as the standard's operation does); undefined, changing
 * nothing, when `x` is not one.
 */
export function cancelReadableStream(x: unknown, reason: unknown): Promise<undefined> | undefined {
  const readable = readableStreamInternalOrUndefined(x);
  return readable === undefined ? undefined : ReadableStreamCancel(readable, reason);
}

/**
 * WritableStreamClose(x) on the fusestreams WritableStream `x` whether or not it is locked (a close already
 * requested is not requested again: the result is then fulfilled); undefined, changing nothing, when `x` is
 * not one.
 */
export function closeWritableStream(x: unknown): Promise<undefined> | undefined {
  const writable = writableStreamInternalOrUndefined(x);
  if (writable === undefined) return undefined;
  if (WritableStreamCloseQueuedOrInFlight(writable)) return PromiseResolve(undefined);
  return WritableStreamClose(writable);
}

/**
 * WritableStreamAbort(x, reason) on the fusestreams WritableStream `x` whether or not it is locked; undefined,
 * changing nothing, when `x` is not one.
 */
export function abortWritableStream(x: unknown, reason: unknown): Promise<undefined> | undefined {
  const writable = writableStreamInternalOrUndefined(x);
  return writable === undefined ? undefined : WritableStreamAbort(writable, reason);
}
