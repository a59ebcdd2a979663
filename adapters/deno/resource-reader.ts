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
  const reader = native.getReader({ mode: "byob" });
  // Reads in flight at once each need a buffer: the spare one, or a new one when it is out.
  let spare: ArrayBuffer | undefined = new ArrayBuffer(BUFFER_BYTES);
  const read = (): Promise<ReadableStreamReadResult<R>> => {
    const buffer = spare ?? new ArrayBuffer(BUFFER_BYTES);
    spare = undefined;
    return reader.read(new Uint8Array(buffer)).then((result) => {
      const view = result.value;
      if (view !== undefined) spare = view.buffer as ArrayBuffer;
      if (result.done) return { done: true, value: undefined };
      return { done: false, value: view!.slice() as R };
    });
  };
  return {
    read,
    cancel: (reason) => reader.cancel(reason),
    releaseLock: () => reader.releaseLock(),
  };
}
