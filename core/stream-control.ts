/**
 * Acting on a stream from outside its reader or writer, as a runtime's own code does with its native streams
 * (a fusestreams extra for the runtime kit, not part of the standard): Deno's `FileHandle` cancels the stream
 * `readableWebStream()` gave out when the file is closed, readers or not, and Deno's `WebSocketStream` closes
 * its writable side so when the socket closes. Reached through core/internal.ts only.
 * @module
 */
import { readableStreamInternalOrUndefined } from "./readable/brand.ts";
import { ReadableStreamCancel } from "./readable/stream-internal.ts";
import { PromiseResolve } from "./shared/promise.ts";
import { writableStreamInternalOrUndefined } from "./writable/brand.ts";
import {
  WritableStreamAbort,
  WritableStreamClose,
  WritableStreamCloseQueuedOrInFlight,
} from "./writable/stream-internal.ts";

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

/**
 * Whether `x` is a fusestreams readable byte stream (made with `type: "bytes"`: BYOB readers work); undefined
 * when `x` is not a fusestreams ReadableStream.
 */
export function isReadableByteStream(x: unknown): boolean | undefined {
  return readableStreamInternalOrUndefined(x)?.isByte;
}

export { errorTransformStream } from "./transform/transform-stream.ts";
