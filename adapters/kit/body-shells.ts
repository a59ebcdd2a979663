/**
 * Body shells: what `Response.prototype.body` and `Request.prototype.body` hand out for a native body
 * while patched (step `bodies`), one of our streams of the native body's kind in front of it. A body shell
 * reads its native stream only at its first pull, hands the native stream over whole while nothing has
 * read it (to our pipe, to a native API such as `new Response(shell)`), and keeps its lock and the native
 * body's in line (`syncBodyShell`), so that the runtime's own consumers see the body's real state.
 * @module
 */
import { acquireBatchReader, type ReadableStream, type ReadableStreamLike } from "../../core/internal.ts";
import { BodyLink } from "./body-link.ts";
import { linkedShell, nativeHoldOf, readableShell, shellHooks } from "./native-shells.ts";
import { noop } from "./natives.ts";
import { ObjectSlot } from "./object-slot.ts";

/** The link of each body shell (what it shares with the shell of its native stream). */
const shellStates = new ObjectSlot<BodyLink>("fusestreams body link");

/**
 * The shell a native body (`Response.prototype.body` of a native stream) is seen through, of the same
 * kind as the native stream: for a byte stream, a byte-stream shell like `readableShell(native, true)`
 * (BYOB readers work, chunks are transferred: a byte stream's reads hand out buffers no one else holds);
 * for a default stream, a default-stream shell like `readableShell(native, false)`, which passes chunks
 * on as they are (a default stream may hand the same chunk object to several readers, e.g. both branches
 * of its `tee()`, as undici 6 clones a body: transferring it would detach the other reader's bytes).
 * Either way its native stream can still be handed, whole, to a pipe as a default-stream shell while
 * nothing has read it (see {@link takeBodyForPipe}). `bytes` false makes a default-stream shell whatever the
 * native stream's kind (for a stream that stands for a default stream of ours).
 */
export function bodyShell(
  native: globalThis.ReadableStream<Uint8Array>,
  bytes: boolean = isByteStream(native),
): ReadableStream<Uint8Array> {
  const state = new BodyLink(native);
  const stream = linkedShell(native, bytes, state);
  shellStates.set(stream, state);
  return stream;
}

/**
 * Whether `native` is a readable byte stream: it accepts a BYOB reader (taken and released at once; an
 * unlocked stream is left exactly as it was, and a locked one counts as not a byte stream).
 */
function isByteStream(native: globalThis.ReadableStream): boolean {
  if (!native.locked) {
    const known = shellHooks.isByteStream?.(native);
    if (known !== undefined) return known;
  }
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
function freeBodyShell(stream: unknown): BodyLink | undefined {
  const state = typeof stream === "object" && stream !== null ? shellStates.get(stream) : undefined;
  if (state === undefined) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
  syncBodyShell(body);
  return !state.free || body.locked ? undefined : state;
}

/** The current body shell of each native body (see {@link bodyShellOf}). */
const bodyShells = new ObjectSlot<ReadableStream<Uint8Array>>("fusestreams body shell");

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
 * BODY-PIPE: when `stream` is a body shell nothing has read or locked yet, and the pipe may cancel its
 * source (`preventCancel` not set): locks the body shell (as the pipe would) and returns a default-stream
 * shell of the same native stream for the pipe to read instead, so the pipe does not go through byte
 * stream machinery per chunk. When that shell ends, the body shell ends the same way (closed, or errored
 * with the same error) and is unlocked. Otherwise returns undefined and the pipe reads `stream` itself.
 * Unobservable: the body shell is locked to the pipe for the pipe's whole life, so nobody sees how the
 * pipe reads it; the chunks are the native stream's, in order, and its end reaches the body shell.
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
  const pipe = handOverToPipe(body, state);
  return readableShell(state.native, false, pipe.end);
}

/** A body shell's native stream handed to a pipe, and what the pipe calls when it has read it to its end. */
export interface BodyForPipe {
  readonly native: globalThis.ReadableStream<Uint8Array>;
  /** The native stream closed (`failed` false) or failed with `error`: the body shell ends so and is unlocked. */
  end(failed: boolean, error?: unknown): void;
}

/** Locks the body shell `body` to a pipe and hands its native stream over (see {@link takeBodyForPipe}). */
function handOverToPipe(body: ReadableStream<Uint8Array>, state: BodyLink): BodyForPipe {
  state.handOver();
  // The pipe's lock on the body shell, through a reader no code can reach: its release makes no TypeError
  // for a `closed` promise nobody could see (BODY-PIPE-LOCK).
  const held = acquireBatchReader(body as unknown as ReadableStreamLike<Uint8Array>, "pipeTo");
  return {
    native: state.native as globalThis.ReadableStream<Uint8Array>,
    end(failed, error) {
      if (failed) state.error(error);
      else held.cancel().then(undefined, noop);
      held.release();
    },
  };
}

/**
 * NATIVE-CODEC-THROUGH: when `stream` is a body shell nothing has read or locked yet, locks it to a pipe the
 * runtime runs (as BODY-PIPE does for ours) and returns its native stream with the pipe's `end`; otherwise
 * undefined.
 */
export function takeBodyForNativePipe(stream: unknown): BodyForPipe | undefined {
  const state = freeBodyShell(stream);
  return state === undefined ? undefined : handOverToPipe(stream as ReadableStream<Uint8Array>, state);
}

/**
 * BODY-HANDBACK: when `stream` is a body shell that nothing has read, locked or cancelled: hands its native
 * stream over whole (for a native API that takes the stream, e.g. `new Response(shell)` through the patch,
 * so the runtime keeps its own fast paths for its own streams) and locks the shell for good; it will not
 * cancel the native stream. Otherwise returns undefined. Unobservable: the native API would lock the shell
 * and read all of it; it gets the same bytes from the stream the shell stands for, and the shell is locked
 * as it would be.
 */
export function takeNativeOfBodyShell(stream: unknown): globalThis.ReadableStream<Uint8Array> | undefined {
  const state = freeBodyShell(stream);
  if (state === undefined) return undefined;
  const body = stream as ReadableStream<Uint8Array>;
  state.handOver();
  body.getReader();
  if (bodyShells.get(state.native) === body) bodyShells.delete(state.native);
  return state.native as globalThis.ReadableStream<Uint8Array>;
}

/** The body shell each Response/Request handed out last (see {@link syncBodyShellOf}). */
const shellOf = new ObjectSlot<ReadableStream<Uint8Array>>("fusestreams last body shell");

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
  if (state === undefined || !state.free) return;
  const hold = nativeHoldOf(shell)!;
  if (shell.locked) {
    hold.hold();
    return;
  }
  hold.letGo();
  if (!state.native.locked) return;
  state.handOver();
  shell.getReader();
}

/** Whether `stream` is a body shell (one of ours standing for a native body). */
export function isBodyShell(stream: unknown): boolean {
  return typeof stream === "object" && stream !== null && shellStates.has(stream);
}
