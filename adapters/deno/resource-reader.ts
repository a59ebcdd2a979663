/**
 * DENO-BYOB: how our shells read Deno's resource-backed streams (fetch response bodies, `Deno.serve`
 * request bodies, `FsFile.readable`). Deno fills such a stream from its resource (a socket, a file) with
 * one op per read; a default read makes it allocate a fresh, zeroed 64 KiB buffer for every read, however
 * few bytes the op returns (1 KiB frames of a chunked response: 64 times the memory, and the time to
 * zero it). A shell reading one of them uses a BYOB reader instead: each read fills a 64 KiB buffer the
 * shell reuses, and the chunk handed on is a copy of just the bytes read. Same bytes in the same order
 * and the same reads of the resource; the buffer is the shell's own, so no view of it escapes.
 * Measured in `rt-fetch-3` (README, Deno).
 * @module
 */
import { Native } from "../kit/natives.ts";
import type { NativeReader } from "../kit/native-shells.ts";

/** The size of the reused buffer: what Deno reads from a resource at most per op for a default read. */
const BUFFER_BYTES = 64 * 1024;

/** The options of the BYOB reader (one object, not one per reader). */
const BYOB = { mode: "byob" } as const;

/** How many spare buffers the pool keeps at most (one per body read at once, up to this many). */
const POOL_SIZE = 8;

/**
 * DENO-BYOB-POOL: buffers of readers whose stream ended, reused by the next reader instead of a new zeroed
 * 64 KiB buffer per body (a `Deno.serve` request body is read through one reader per request). Unobservable:
 * a buffer goes back only once its stream has ended, when the reader's spare and the done read's buffer are
 * the reader's own (every chunk handed on was a copy), and it is overwritten only by what the next read
 * reports it read. Measured in `hono-echo` (bench/real).
 */
const pool: ArrayBuffer[] = [];

function takeBuffer(): ArrayBuffer {
  return pool.pop() ?? new ArrayBuffer(BUFFER_BYTES);
}

function giveBuffer(buffer: ArrayBuffer): void {
  // A detached buffer has a byteLength of 0, so it is never kept.
  if (pool.length < POOL_SIZE && buffer.byteLength === BUFFER_BYTES) pool.push(buffer);
}

/**
 * The own symbol under which Deno keeps a stream's resource (`{ rid, autoClose }` for a resource-backed
 * stream, `null` otherwise), found by its description on a stream made at load; undefined if this Deno
 * keeps none (the shells then read every stream with its default reader).
 */
const kResourceBacking: symbol | undefined = Native.ReadableStream === undefined
  ? undefined
  : Object.getOwnPropertySymbols(new Native.ReadableStream()).find((key) => key.description === "[[resourceBacking]]");

/** Whether `native` is one of Deno's resource-backed streams. */
export function isResourceBacked(native: object): boolean {
  if (kResourceBacking === undefined) return false;
  const backing = (native as Record<symbol, unknown>)[kResourceBacking];
  return typeof backing === "object" && backing !== null;
}

/**
 * A BYOB reader over `native` with a reused buffer, when `native` is resource-backed (see the module);
 * undefined otherwise (the shell then takes the default reader). Locks `native`.
 */
export function openResourceReader<R>(native: globalThis.ReadableStream<R>): NativeReader<R> | undefined {
  if (!isResourceBacked(native) || native.locked) return undefined;
  const reader = native.getReader(BYOB);
  // Reads in flight at once each need a buffer: the spare one, or one from the pool when it is out.
  let spare: ArrayBuffer | undefined = takeBuffer();
  const read = (): Promise<ReadableStreamReadResult<R>> => {
    const buffer = spare ?? takeBuffer();
    spare = undefined;
    return reader.read(new Uint8Array(buffer)).then((result) => {
      const view = result.value;
      if (result.done) {
        // The stream is over: its buffers go back to the pool for the next reader (DENO-BYOB-POOL).
        if (view !== undefined) giveBuffer(view.buffer as ArrayBuffer);
        if (spare !== undefined) giveBuffer(spare);
        spare = undefined;
        return { done: true, value: undefined };
      }
      spare = view!.buffer as ArrayBuffer;
      return { done: false, value: view!.slice() as R };
    });
  };
  return {
    read,
    cancel: (reason) => reader.cancel(reason),
    releaseLock: () => reader.releaseLock(),
  };
}
