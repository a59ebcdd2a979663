/**
 * Shells: fusestreams streams in front of the runtime's native (built-in) streams, used by the global
 * patch where native streams meet ours (fetch bodies, native streams piped to or from ours). A shell
 * makes one native call per chunk at the boundary and nothing else.
 * @module
 */
import {
  ReadableStream,
  type ReadableByteStreamController,
  type ReadableStreamDefaultController,
  type UnderlyingByteSource,
  WritableStream,
  type WritableStreamDefaultController,
} from "../../mod.ts";
import { noop } from "./natives.ts";

/** What a shell reads its native stream through: a native default reader, or a runtime's own reader. */
export interface NativeReader<R> {
  read(): Promise<ReadableStreamReadResult<R>>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/**
 * Hooks a runtime's patch sets (through its transaction, so unpatching restores them): `openReader`
 * returns a faster reader for some native streams (Deno: BYOB reads of resource-backed streams into a
 * reused buffer), or undefined to read the stream with its default reader.
 */
export const shellHooks: { openReader?: <R>(native: globalThis.ReadableStream<R>) => NativeReader<R> | undefined } = {};

function openReader<R>(native: globalThis.ReadableStream<R>): NativeReader<R> {
  return shellHooks.openReader?.(native) ?? native.getReader();
}

/**
 * One of our ReadableStreams reading from a native one. The native stream is locked only at the first
 * pull (so merely creating the shell, e.g. by reading `response.body`, does not use the body up).
 *
 * With `bytes`, the shell is a readable byte stream (BYOB readers work), for byte sources such as fetch
 * bodies: each pull makes one native `read()` and returns at once (no promise of ours per chunk), and the
 * chunk is enqueued when the native read fulfills; a consumer with several reads pending gets several
 * native reads in flight, answered in order. Chunks that are not whole, unshared `Uint8Array` buffers
 * are copied before being enqueued, since enqueueing transfers the buffer.
 *
 * Without `bytes`, the shell is a default stream read in bursts (see {@link defaultShell}).
 */
export function readableShell<R>(
  native: globalThis.ReadableStream<R>,
  bytes: boolean,
  onEnd?: ShellEnd,
): ReadableStream<R> {
  if (!bytes) return defaultShell(native, onEnd);
  return byteShell(native, onEnd, undefined);
}

/**
 * The byte-stream shell of {@link readableShell} (and of {@link bodyShell}, which passes its `body` state:
 * the controller is recorded there, a pull or cancel marks it touched, and once handed over to a pipe the
 * native stream is the pipe's to cancel).
 */
function byteShell<R>(
  native: globalThis.ReadableStream<R>,
  onEnd: ShellEnd | undefined,
  body: ShellState | undefined,
): ReadableStream<R> {
  let reader: NativeReader<R> | undefined;
  let controller!: ReadableByteStreamController;
  // Set once the shell is closed, errored or cancelled: native results still in flight are dropped.
  let done = false;
  const onResult = (result: { done: boolean; value?: R }): void => {
    if (done) return;
    if (result.done) {
      done = true;
      controller.close();
      controller.byobRequest?.respond(0);
      onEnd?.(false, undefined);
      return;
    }
    try {
      controller.enqueue(ownedBytes(result.value));
    } catch (err) {
      onError(err);
    }
  };
  const onError = (err: unknown): void => {
    if (done) return;
    done = true;
    controller.error(err);
    onEnd?.(true, err);
  };
  const source = {
    type: "bytes" as const,
    start(c: ReadableByteStreamController): void {
      controller = c;
      if (body !== undefined) body.controller = c;
    },
    pull(): void {
      if (body !== undefined) body.touched = true;
      (reader ??= openReader(native)).read().then(onResult, onError);
    },
    cancel(reason: unknown): Promise<void> | undefined {
      if (body !== undefined) body.touched = true;
      const wasDone = done;
      done = true;
      if (!wasDone) onEnd?.(false, undefined);
      // Handed over: the pipe's own shell owns (and cancels) the native stream.
      if (body?.handedOver) return undefined;
      return reader === undefined ? native.cancel(reason) : reader.cancel(reason);
    },
  };
  return new ReadableStream(source as unknown as UnderlyingByteSource, { highWaterMark: 0 }) as unknown as ReadableStream<R>;
}

/**
 * A default-stream shell of a native stream, read in bursts: a pull starts a loop that awaits one native
 * `read()` at a time and enqueues each chunk, and goes on while each chunk is taken at once by a read
 * waiting for it (the shell's queue stays empty). So a pull reaction is paid per burst, not per chunk
 * (the pull's promise settles when the burst stops), and per chunk what is left is the native read.
 * The high-water mark is 0, as for a native byte stream: nothing is read from the native stream before
 * the first read (a pipe aborted before it starts reads nothing), and at most one chunk is read ahead of
 * the consumer (when the consumer stops reading in the middle of a burst).
 */
function defaultShell<R>(
  native: globalThis.ReadableStream<R>,
  onEnd: ShellEnd | undefined,
  body?: ShellState,
): ReadableStream<R> {
  let reader: NativeReader<R> | undefined;
  let controller!: ReadableStreamDefaultController<R>;
  // Set once the shell is closed, errored or cancelled: native results still in flight are dropped.
  let done = false;
  // Settles the promise of the pull that started the running burst.
  let endBurst: (() => void) | undefined;
  const fail = (err: unknown): void => {
    if (done) return;
    done = true;
    controller.error(err);
    onEnd?.(true, err);
  };
  const burst = async (): Promise<void> => {
    try {
      const r = (reader ??= openReader(native));
      for (;;) {
        const result = await r.read();
        if (done) return;
        if (result.done) {
          done = true;
          controller.close();
          onEnd?.(false, undefined);
          return;
        }
        controller.enqueue(result.value);
        // Queued (desiredSize -1), or the shell ended inside enqueue(): the burst stops.
        if (done || controller.desiredSize !== 0) return;
      }
    } catch (err) {
      fail(err);
    } finally {
      const end = endBurst!;
      endBurst = undefined;
      end();
    }
  };
  return new ReadableStream<R>(
    {
      start(c) {
        controller = c;
        if (body !== undefined) body.controller = c as ReadableStreamDefaultController<unknown>;
      },
      pull() {
        if (body !== undefined) body.touched = true;
        const promise = new Promise<void>((resolve) => {
          endBurst = resolve;
        });
        void burst();
        return promise;
      },
      cancel(reason) {
        if (body !== undefined) body.touched = true;
        const wasDone = done;
        done = true;
        if (!wasDone) onEnd?.(false, undefined);
        // Handed over: the pipe's own shell owns (and cancels) the native stream.
        if (body?.handedOver) return undefined;
        return reader === undefined ? native.cancel(reason) : reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Called once when a shell closes, errors or is cancelled (`failed` and the error for an error). */
export type ShellEnd = (failed: boolean, error: unknown) => void;

/** What {@link bodyShell} keeps about one body shell. */
interface ShellState {
  native: globalThis.ReadableStream;
  controller: ReadableByteStreamController | ReadableStreamDefaultController<unknown>;
  /** pulled or cancelled: its native stream is no longer free to hand over */
  touched: boolean;
  /** its native stream was handed to a pipe (see takeBodyForPipe) */
  handedOver: boolean;
}

const shellStates = new WeakMap<object, ShellState>();

/**
 * The shell a native body (`Response.prototype.body` of a native stream) is seen through, of the same
 * kind as the native stream: for a byte stream, a byte-stream shell like `readableShell(native, true)`
 * (BYOB readers work, chunks are transferred: a byte stream's reads hand out buffers no one else holds);
 * for a default stream, a default-stream shell like `readableShell(native, false)`, which passes chunks
 * on as they are (a default stream may hand the same chunk object to several readers, e.g. both branches
 * of its `tee()`, as undici 6 clones a body: transferring it would detach the other reader's bytes).
 * Either way its native stream can still be handed, whole, to a pipe as a default-stream shell while
 * nothing has read it (see {@link takeBodyForPipe}).
 */
export function bodyShell(native: globalThis.ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const state = { native, touched: false, handedOver: false } as ShellState;
  const stream = isByteStream(native) ? byteShell(native, undefined, state) : defaultShell(native, undefined, state);
  shellStates.set(stream, state);
  return stream;
}

/**
 * Whether `native` is a readable byte stream: it accepts a BYOB reader (taken and released at once; an
 * unlocked stream is left exactly as it was, and a locked one counts as not a byte stream).
 */
function isByteStream(native: globalThis.ReadableStream): boolean {
  try {
    native.getReader({ mode: "byob" }).releaseLock();
    return true;
  } catch {
    return false;
  }
}

/** The current body shell of each native body (see {@link bodyShellOf}). */
const bodyShells = new WeakMap<object, ReadableStream<Uint8Array>>();

/**
 * The body shell a native body is seen through: the same one each time for the same native stream, until
 * that shell hands the native stream over whole ({@link takeNativeOfBodyShell}: `new Response(shell)`
 * through the patch). The native stream then belongs to a new body, which gets a new shell; the old one
 * stays locked, as the body of a Response whose stream a new Response took.
 */
export function bodyShellOf(native: globalThis.ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let shell = bodyShells.get(native);
  if (shell === undefined) {
    shell = bodyShell(native);
    bodyShells.set(native, shell);
  }
  return shell;
}

/**
 * When `stream` is a body shell nothing has read or locked yet, and the pipe may cancel its source
 * (`preventCancel` not set): locks the body shell (as the pipe would) and returns a default-stream
 * shell of the same native stream for the pipe to read instead, so the pipe does not go through byte
 * stream machinery per chunk. When that shell ends, the body shell ends the same way (closed, or errored
 * with the same error) and is unlocked. Otherwise returns undefined and the pipe reads `stream` itself.
 */
export function takeBodyForPipe(stream: unknown, options: unknown): ReadableStream<Uint8Array> | undefined {
  const state = shellStates.get(stream as object);
  if (state === undefined || state.touched || state.handedOver) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
  if (body.locked) return undefined;
  if (options !== undefined && (typeof options !== "object" || options === null)) return undefined;
  if (options != null) {
    const { preventCancel, signal } = options as { preventCancel?: unknown; signal?: unknown };
    // Only options the pipe is sure to accept: a pipe that rejects them must leave the body untouched.
    if (preventCancel || (signal !== undefined && !(signal instanceof AbortSignal))) return undefined;
  }
  state.handedOver = true;
  const held = body.getReader();
  return readableShell(state.native, false, (failed, error) => {
    if (failed) state.controller.error(error);
    else held.cancel().then(undefined, noop);
    held.releaseLock();
  });
}

/**
 * When `stream` is a body shell that nothing has read, locked or cancelled: hands its native stream over
 * whole (for a native API that takes the stream, e.g. `new Response(shell)` through the patch, so the
 * runtime keeps its own fast paths for its own streams) and locks the shell for good; it will not cancel
 * the native stream. Otherwise returns undefined.
 */
export function takeNativeOfBodyShell(stream: unknown): globalThis.ReadableStream<Uint8Array> | undefined {
  const state = shellStates.get(stream as object);
  if (state === undefined || state.touched || state.handedOver) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
  if (body.locked) return undefined;
  state.handedOver = true;
  body.getReader();
  if (bodyShells.get(state.native) === body) bodyShells.delete(state.native);
  return state.native as globalThis.ReadableStream<Uint8Array>;
}

/**
 * When `stream` is a body shell that nothing has read, locked or cancelled, and its native stream has been
 * locked by something else (the runtime's own consumer, such as `text()`): locks the shell for good, so
 * that `body.locked` reports what the native body reports. The shell will not touch the native stream.
 */
export function followNativeLock(stream: unknown): void {
  const state = shellStates.get(stream as object);
  if (state === undefined || state.touched || state.handedOver || !state.native.locked) return;
  const body = stream as ReadableStream<Uint8Array>;
  if (body.locked) return;
  state.handedOver = true;
  body.getReader();
}

/** A Uint8Array that may be transferred: the chunk itself when it owns its whole buffer, else a copy. */
function ownedBytes(chunk: unknown): Uint8Array<ArrayBuffer> {
  if (chunk instanceof Uint8Array && chunk.buffer instanceof ArrayBuffer) {
    if (chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength) return chunk as Uint8Array<ArrayBuffer>;
    return chunk.slice();
  }
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength).slice();
  throw new TypeError("The native stream produced a chunk that is not an ArrayBufferView");
}

/**
 * One of our WritableStreams writing into a native one through its writer (locked at once). A write
 * completes as soon as the native writer is ready for more, so the native queue does the buffering.
 */
export function writableShell<W>(native: globalThis.WritableStream<W>): WritableStream<W> {
  const writer = native.getWriter();
  return new WritableStream<W>(
    {
      start(controller: WritableStreamDefaultController) {
        writer.closed.then(noop, (err: unknown) => controller.error(err));
      },
      write(chunk) {
        writer.write(chunk).then(undefined, noop);
        return writer.ready;
      },
      close() {
        return writer.close();
      },
      abort(reason) {
        return writer.abort(reason);
      },
    },
    { highWaterMark: 1 },
  );
}
