/**
 * Read-only views of a stream's internal state (a fusestreams extra, not part of the standard): what the
 * runtime adapters need to answer questions the standard API cannot, e.g. node:stream's `isDisturbed()`,
 * `isErrored()`, `isReadable()` and `finished()` for fusestreams streams while the Node adapter's global
 * patch is on. Nothing here changes a stream.
 * @module
 */
import { queueMicrotask } from "./shared/primordials.ts";
import { readableStreamInternalOrUndefined } from "./readable/brand.ts";
import {
  CLOSED as R_CLOSED,
  ERRORED as R_ERRORED,
  READABLE as R_READABLE,
  ReadableStreamExtras,
} from "./readable/stream-internal.ts";
import { writableStreamInternalOrUndefined } from "./writable/brand.ts";
import {
  CLOSED as W_CLOSED,
  ERRORED as W_ERRORED,
  ERRORING as W_ERRORING,
  WritableStreamExtras,
} from "./writable/stream-internal.ts";

/** A fusestreams ReadableStream's [[state]], [[disturbed]] and [[storedError]]. */
export interface ReadableStreamStateView {
  /** The stream's [[state]]. */
  readonly state: "readable" | "closed" | "errored";
  /** [[disturbed]]: whether anything has been read from it or it was cancelled. */
  readonly disturbed: boolean;
  /** Whether it is locked to a reader (or a pipe). */
  readonly locked: boolean;
  /** [[storedError]]: what it errored with (`undefined` unless `state` is `"errored"`). */
  readonly storedError: unknown;
}

/** A fusestreams WritableStream's [[state]] and [[storedError]]. */
export interface WritableStreamStateView {
  /** The stream's [[state]]. */
  readonly state: "writable" | "erroring" | "closed" | "errored";
  /** Whether it is locked to a writer (or a pipe). */
  readonly locked: boolean;
  /** [[storedError]]: what it is erroring or errored with (`undefined` while writable or closed). */
  readonly storedError: unknown;
}

/** The state of `x` if it is a fusestreams ReadableStream, else undefined. */
export function readableStreamState(x: unknown): ReadableStreamStateView | undefined {
  const s = readableStreamInternalOrUndefined(x);
  if (s === undefined) return undefined;
  return {
    state: s.state === R_CLOSED ? "closed" : s.state === R_ERRORED ? "errored" : "readable",
    disturbed: s.disturbed,
    locked: s.reader !== undefined,
    storedError: s.storedError,
  };
}

/**
 * Whether `x` is an unlocked fusestreams ReadableStream with a default controller whose source has called
 * `close()` with chunks still queued: every chunk it will ever give is in its queue now, so a consumer may take
 * them all at once (Bun's consumers do so for their own streams, synchronously). False for anything else.
 */
export function isReadableStreamClosingWithQueue(x: unknown): boolean {
  const s = readableStreamInternalOrUndefined(x);
  return s !== undefined && !s.isByte && s.reader === undefined && s.state === R_READABLE &&
    s.closeRequested;
}

/** The state of `x` if it is a fusestreams WritableStream, else undefined. */
export function writableStreamState(x: unknown): WritableStreamStateView | undefined {
  const s = writableStreamInternalOrUndefined(x);
  if (s === undefined) return undefined;
  const state = s.state === W_CLOSED
    ? "closed"
    : s.state === W_ERRORED
    ? "errored"
    : s.state === W_ERRORING
    ? "erroring"
    : "writable";
  return { state, locked: s.writer !== undefined, storedError: s.storedError };
}

/**
 * Calls `onClosed` or `onErrored` (with the stored error) once, in a microtask after the ReadableStream `x`
 * closes or errors however it is consumed (reader, pipe, iteration, tee), or at once if it already has.
 * Returns false, registering nothing, when `x` is not a fusestreams ReadableStream.
 */
export function whenReadableStreamSettles(x: unknown, onClosed: () => void, onErrored: (e: unknown) => void): boolean {
  const s = readableStreamInternalOrUndefined(x);
  if (s === undefined) return false;
  const report = (): void => {
    if (s.state === R_ERRORED) {
      const e = s.storedError;
      queueMicrotask(() => onErrored(e));
    } else {
      queueMicrotask(onClosed);
    }
  };
  if (s.state !== R_CLOSED && s.state !== R_ERRORED) {
    const ext = s.ext ??= new ReadableStreamExtras();
    const previous = ext.onSettled;
    ext.onSettled = previous === undefined ? report : () => {
      previous();
      report();
    };
  } else {
    report();
  }
  return true;
}

/**
 * Calls `onClosed` or `onErrored` (with the stored error) once, in a microtask after the WritableStream `x`
 * closes or errors however it is written to (writer, pipe, abort): where a writer's `closed` promise would
 * settle (an erroring stream is errored once its sink's abort() has settled), or at once if it already has.
 * Returns false, registering nothing, when `x` is not a fusestreams WritableStream.
 */
export function whenWritableStreamSettles(x: unknown, onClosed: () => void, onErrored: (e: unknown) => void): boolean {
  const s = writableStreamInternalOrUndefined(x);
  if (s === undefined) return false;
  const report = (): void => {
    if (s.state === W_ERRORED) {
      const e = s.storedError;
      queueMicrotask(() => onErrored(e));
    } else {
      queueMicrotask(onClosed);
    }
  };
  if (s.state !== W_CLOSED && s.state !== W_ERRORED) {
    const ext = s.ext ??= new WritableStreamExtras();
    const previous = ext.onSettled;
    ext.onSettled = previous === undefined ? report : () => {
      previous();
      report();
    };
  } else {
    report();
  }
  return true;
}
