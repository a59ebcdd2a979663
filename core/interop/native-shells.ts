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
  const hold = new NativeHold(native, body);
  let controller!: ReadableByteStreamController;
  const onResult = (result: { done: boolean; value?: R }): void => {
    if (hold.done) return;
    if (result.done) {
      hold.done = true;
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
    if (hold.done) return;
    hold.done = true;
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
      hold.reader().read().then(onResult, onError);
    },
    cancel: (reason: unknown) => hold.cancel(reason, onEnd),
  };
  const stream = new ReadableStream(source as unknown as UnderlyingByteSource, { highWaterMark: 0 }) as unknown as ReadableStream<R>;
  holds.set(stream, hold);
  return stream;
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
  const hold = new NativeHold(native, body);
  let controller!: ReadableStreamDefaultController<R>;
  // Settles the promise of the pull that started the running burst.
  let endBurst: (() => void) | undefined;
  const fail = (err: unknown): void => {
    if (hold.done) return;
    hold.done = true;
    controller.error(err);
    onEnd?.(true, err);
  };
  const burst = async (): Promise<void> => {
    try {
      const r = hold.reader();
      for (;;) {
        const result = await r.read();
        if (hold.done) return;
        if (result.done) {
          hold.done = true;
          controller.close();
          onEnd?.(false, undefined);
          return;
        }
        controller.enqueue(result.value);
        // Queued (desiredSize -1), or the shell ended inside enqueue(): the burst stops.
        if (hold.done || controller.desiredSize !== 0) return;
      }
    } catch (err) {
      fail(err);
    } finally {
      const end = endBurst!;
      endBurst = undefined;
      end();
    }
  };
  const stream = new ReadableStream<R>(
    {
      start(c) {
        controller = c;
        if (body !== undefined) body.controller = c as ReadableStreamDefaultController<unknown>;
      },
      pull() {
        const promise = new Promise<void>((resolve) => {
          endBurst = resolve;
        });
        void burst();
        return promise;
      },
      cancel: (reason) => hold.cancel(reason, onEnd),
    },
    { highWaterMark: 0 },
  );
  holds.set(stream, hold);
  return stream;
}

/**
 * A shell's hold on its native stream: the native reader, taken at the shell's first pull, or earlier
 * when the shell's own lock must show on the native stream (see {@link holdNativeOf}), and given back
 * when that lock went away before anything was read or cancelled ({@link syncBodyShell}).
 */
class NativeHold<R> {
  readonly #native: globalThis.ReadableStream<R>;
  readonly #body: ShellState | undefined;
  #reader: NativeReader<R> | undefined;
  /** Read from or cancelled through this hold: its reader is no longer the shell's to give back. */
  #used = false;
  /** Set once the shell is closed, errored or cancelled: native results still in flight are dropped. */
  done = false;

  constructor(native: globalThis.ReadableStream<R>, body: ShellState | undefined) {
    this.#native = native;
    this.#body = body;
  }

  /** The reader, for a read: the native stream is the shell's from now on. */
  reader(): NativeReader<R> {
    this.#used = true;
    if (this.#body !== undefined) this.#body.touched = true;
    return this.hold();
  }

  /** Locks the native stream (takes the reader) without reading it. */
  hold(): NativeReader<R> {
    return (this.#reader ??= openReader(this.#native));
  }

  /** Unlocks the native stream when it was only held: nothing read or cancelled through it. */
  letGo(): void {
    if (this.#used || this.#reader === undefined) return;
    this.#reader.releaseLock();
    this.#reader = undefined;
  }

  /** The shell's cancel: ends the shell and cancels the native stream, unless handed over to a pipe. */
  cancel(reason: unknown, onEnd: ShellEnd | undefined): Promise<void> | undefined {
    this.#used = true;
    const body = this.#body;
    if (body !== undefined) body.touched = true;
    const wasDone = this.done;
    this.done = true;
    if (!wasDone) onEnd?.(false, undefined);
    // Handed over: the pipe's own shell owns (and cancels) the native stream.
    if (body?.handedOver) return undefined;
    return this.#reader === undefined ? this.#native.cancel(reason) : this.#reader.cancel(reason);
  }
}

/** The hold of every shell on its native stream. */
const holds = new WeakMap<object, NativeHold<unknown>>();

/**
 * When `shell` is a shell that is locked (a pipe took it): locks its native stream now, as the native
 * stream would be locked at once by the same pipe, instead of at the shell's first pull.
 */
export function holdNativeOf(shell: ReadableStream<unknown> | undefined): void {
  if (shell?.locked) holds.get(shell)?.hold();
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

/**
 * The state of `stream` when it is a body shell that nothing has read, locked, cancelled or handed over,
 * after {@link syncBodyShell} (its native stream then is unlocked too); otherwise undefined.
 */
function freeBodyShell(stream: unknown): ShellState | undefined {
  const state = typeof stream === "object" && stream !== null ? shellStates.get(stream) : undefined;
  if (state === undefined) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
  syncBodyShell(body);
  return state.touched || state.handedOver || body.locked ? undefined : state;
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
  const state = freeBodyShell(stream);
  if (state === undefined) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
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
  const state = freeBodyShell(stream);
  if (state === undefined) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
  state.handedOver = true;
  body.getReader();
  if (bodyShells.get(state.native) === body) bodyShells.delete(state.native);
  return state.native as globalThis.ReadableStream<Uint8Array>;
}

/** The body shell each Response/Request handed out last (see {@link syncBodyShellOf}). */
const shellOf = new WeakMap<object, ReadableStream<Uint8Array>>();

/**
 * The shell `owner.body` (a Response or Request) hands out for its native body `native`, its state
 * brought in line with the native body's (see {@link syncBodyShell}).
 */
export function bodyShellFor(owner: object, native: globalThis.ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const shell = bodyShellOf(native);
  shellOf.set(owner, shell);
  syncBodyShell(shell);
  return shell;
}

/**
 * Brings the native body of the shell `owner.body` last handed out in line with that shell, before the
 * runtime's own code looks at the native body (`text()`, `clone()`...): see {@link syncBodyShell}.
 */
export function syncBodyShellOf(owner: unknown): void {
  const shell = typeof owner === "object" && owner !== null ? shellOf.get(owner) : undefined;
  if (shell !== undefined) syncBodyShell(shell);
}

/**
 * A body shell reads its native stream only at its first pull, so that reading `response.body` does not
 * use the body up; until then the lock of one shows on the other here, for a shell nothing has read,
 * cancelled or handed over:
 * - the shell is locked (a reader of ours, a pipe, `tee()`): the native stream is locked too (held), so
 *   the runtime's `text()`, `clone()`... refuse it as they refuse a locked native body;
 * - the shell is not locked: a native stream only held (the reader was released) is unlocked again; and
 *   when something else locked the native stream (the runtime's own consumer, `text()`), the shell is
 *   locked for good, so that `body.locked` says what the native body says. The shell then never touches
 *   the native stream.
 */
export function syncBodyShell(shell: ReadableStream<Uint8Array>): void {
  const state = shellStates.get(shell);
  if (state === undefined || state.touched || state.handedOver) return;
  const hold = holds.get(shell)!;
  if (shell.locked) {
    hold.hold();
    return;
  }
  hold.letGo();
  if (!state.native.locked) return;
  state.handedOver = true;
  shell.getReader();
}

/** Whether `stream` is a body shell (one of ours standing for a native body). */
export function isBodyShell(stream: unknown): boolean {
  return typeof stream === "object" && stream !== null && shellStates.has(stream);
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
 * One of our WritableStreams writing into a native one through its writer (locked at once; see
 * {@link releaseUnusedWritableShell}). A write completes as soon as the native writer is ready for more,
 * so the native queue does the buffering.
 */
export function writableShell<W>(native: globalThis.WritableStream<W>): WritableStream<W> {
  const writer = native.getWriter();
  const shell = new WritableStream<W>(
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
  writers.set(shell, writer);
  return shell;
}

/** The native writer of each writable shell. */
const writers = new WeakMap<object, WritableStreamDefaultWriter>();

/**
 * When `shell` is a writable shell that nothing locked (the pipe it was made for failed before it
 * started: a locked source, bad options): unlocks its native stream, which a failed native pipe leaves
 * unlocked too. The shell is not used again.
 */
export function releaseUnusedWritableShell(shell: unknown): void {
  if (typeof shell !== "object" || shell === null || (shell as WritableStream).locked) return;
  writers.get(shell)?.releaseLock();
}
