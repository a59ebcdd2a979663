/**
 * Shells: fusestreams streams in front of the runtime's native (built-in) streams, used by the global
 * patch where native streams meet ours (fetch bodies, native streams piped to or from ours). A shell
 * makes one native call per chunk at the boundary and nothing else.
 * @module
 */
import {
  type ReadableByteStreamController,
  ReadableStream,
  type ReadableStreamDefaultController,
  type UnderlyingByteSource,
  WritableStream,
  type WritableStreamDefaultController,
} from "../../core/internal.ts";
import { noop } from "./natives.ts";
import type { BodyLink } from "./body-link.ts";
import { ObjectSlot } from "./object-slot.ts";

/** What a shell reads its native stream through: a native default reader, or a runtime's own reader. */
export interface NativeReader<R> {
  /** The next chunk of the native stream (one native read). */
  read(): Promise<ReadableStreamReadResult<R>>;
  /** Cancels the native stream with `reason`. */
  cancel(reason?: unknown): Promise<void>;
  /** Unlocks the native stream (only before anything was read). */
  releaseLock(): void;
}

/**
 * Hooks a runtime's patch sets (through its transaction, so unpatching restores them): `openReader`
 * returns a faster reader for some native streams (Deno: BYOB reads of resource-backed streams into a
 * reused buffer), or undefined to read the stream with its default reader.
 */
export const shellHooks: {
  /** A reader for `native` (locking it), or undefined for its default reader. */
  openReader?: <R>(native: globalThis.ReadableStream<R>) => NativeReader<R> | undefined;
  /**
   * Whether `native` (unlocked) is a readable byte stream, answered without taking a reader, or undefined
   * when the runtime cannot tell (the kit then takes and releases a BYOB reader to find out).
   */
  isByteStream?: (native: globalThis.ReadableStream) => boolean | undefined;
  /** Told each error a default shell's native read rejected with (Bun: caller-stack.ts). */
  onNativeReadError?: (error: unknown) => void;
  /**
   * A stream of ours standing for `native` where the runtime reads some of its own streams faster another way
   * (Bun: a direct stream's source run by ours), with its hold on `native`; or undefined for a default shell.
   * Asked for the default shells of pipes only (not for byte shells, nor shells that report their end).
   */
  openShell?: (
    native: globalThis.ReadableStream<unknown>,
  ) => { stream: ReadableStream<never>; hold: ShellHold } | undefined;
} = {};

/** A shell's hold on its native stream (see {@link holdNativeOf}). */
export interface ShellHold {
  /** Locks the native stream, as the pipe that took the shell would lock it. */
  hold(): void;
  /** Unlocks it when it was only held (nothing read or cancelled). */
  letGo(): void;
}

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
  if (bytes) return byteShell(native, onEnd, undefined);
  const opened = onEnd === undefined ? shellHooks.openShell?.(native) : undefined;
  if (opened === undefined) return defaultShell(native, onEnd);
  holds.set(opened.stream, opened.hold);
  return opened.stream as ReadableStream<R>;
}

/** The byte-stream shell of {@link readableShell} (and of {@link linkedShell}, which passes `body`). */
function byteShell<R>(
  native: globalThis.ReadableStream<R>,
  onEnd: ShellEnd | undefined,
  body: BodyLink | undefined,
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
      body?.started(c);
    },
    pull(): void {
      hold.reader().read().then(onResult, onError);
    },
    cancel: (reason: unknown) => hold.cancel(reason, onEnd),
  };
  const stream = new ReadableStream(source as unknown as UnderlyingByteSource, {
    highWaterMark: 0,
  }) as unknown as ReadableStream<R>;
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
  body?: BodyLink,
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
  // Named: caller-stack.ts finds this function's frame by its name (NATIVE_READ_FRAME).
  const burst = async function readNativeBurst(): Promise<void> {
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
      shellHooks.onNativeReadError?.(err);
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
        body?.started(c as ReadableStreamDefaultController<unknown>);
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
 * when that lock went away before anything was read or cancelled (body-shells.ts: `syncBodyShell`).
 */
class NativeHold<R> {
  readonly #native: globalThis.ReadableStream<R>;
  readonly #body: BodyLink | undefined;
  #reader: NativeReader<R> | undefined;
  /** Read from or cancelled through this hold: its reader is no longer the shell's to give back. */
  #used = false;
  /** Set once the shell is closed, errored or cancelled: native results still in flight are dropped. */
  done = false;

  constructor(native: globalThis.ReadableStream<R>, body: BodyLink | undefined) {
    this.#native = native;
    this.#body = body;
  }

  /** The reader, for a read: the native stream is the shell's from now on. */
  reader(): NativeReader<R> {
    this.#used = true;
    this.#body?.touch();
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
    body?.touch();
    const wasDone = this.done;
    this.done = true;
    if (!wasDone) onEnd?.(false, undefined);
    // Handed over: the pipe's own shell owns (and cancels) the native stream.
    if (body?.handedOver) return undefined;
    return this.#reader === undefined ? this.#native.cancel(reason) : this.#reader.cancel(reason);
  }
}

/** The hold of every shell on its native stream. */
const holds = new ObjectSlot<ShellHold>("fusestreams native hold");

/**
 * When `shell` is a shell that is locked (a pipe took it): locks its native stream now, as the native
 * stream would be locked at once by the same pipe, instead of at the shell's first pull.
 */
export function holdNativeOf(shell: ReadableStream<unknown> | undefined): void {
  if (shell?.locked) holds.get(shell)?.hold();
}

/** Called once when a shell closes, errors or is cancelled (`failed` and the error for an error). */
export type ShellEnd = (failed: boolean, error: unknown) => void;

/**
 * A shell of `native` of the given kind (see {@link readableShell}) linked to a body shell's `body`: the
 * controller is recorded there, a pull or cancel marks it touched, and once handed over the native stream
 * is no longer the shell's to cancel.
 */
export function linkedShell<R>(
  native: globalThis.ReadableStream<R>,
  bytes: boolean,
  body: BodyLink,
): ReadableStream<R> {
  return bytes ? byteShell(native, undefined, body) : defaultShell(native, undefined, body);
}

/** The hold of a shell on its native stream (for body-shells.ts), or undefined for any other stream. */
export function nativeHoldOf(shell: object): ShellHold | undefined {
  return holds.get(shell);
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
const writers = new ObjectSlot<WritableStreamDefaultWriter>("fusestreams native writer");

/**
 * When `shell` is a writable shell that nothing locked (the pipe it was made for failed before it
 * started: a locked source, bad options): unlocks its native stream, which a failed native pipe leaves
 * unlocked too. The shell is not used again.
 */
export function releaseUnusedWritableShell(shell: unknown): void {
  if (typeof shell !== "object" || shell === null || (shell as WritableStream).locked) return;
  writers.get(shell)?.releaseLock();
}
