/**
 * A batching body bridge for our streams (BODY-BATCH), for runtimes whose consumers of a JavaScript body
 * stream pay a native call per chunk (Deno's ops, workerd's C++ stream reads): a native stream whose
 * first pull starts a fused pipe from ours into a small byte buffer, and whose every pull takes all the
 * bytes buffered so far as one chunk. While the consumer's read is in flight, our pipe keeps filling the
 * buffer, so the next read carries every chunk produced meanwhile. A pull that finds the buffer empty is
 * answered by the very next chunk (nothing waits for a batch to fill), enqueued by our pipe's write itself
 * (BODY-ANSWER-NOW), and once the buffer holds `BATCH_BYTES` or more the pipe waits for the consumer (so the
 * buffer holds less than `BATCH_BYTES` plus one chunk, which is kept whole; our stream's queue and the pipe
 * hold what their high-water marks let them): backpressure holds. Used as `bodyBridge` by the Deno and edge
 * adapters; measured in `rt-serve-3` (README, Deno) and `route-3` (README, Edge).
 *
 * A fused pipe is the batch machinery's cheaper form here: it keeps producing while the runtime's read is in
 * flight. Measured side by side (2026-11-25): a native pull that batch-reads ours (`acquireBatchReader`) and
 * joins the batch ran 0.52-0.66x of this on Deno (`rt-serve-0`/`rt-serve-3`) and 0.31-0.43x in workerd
 * (`route-0`/`route-3`); a batch-read loop filling this same buffer instead of the pipe, 0.91-1.06x (noise).
 * @module
 */
import { type ReadableStream, readableStreamState } from "../../core/internal.ts";
import { type BridgePipe, pipeToBridge } from "./bridge-pipe.ts";
import { joinBytes } from "./join-bytes.ts";
import { Native } from "./natives.ts";
import { ObjectSlot } from "./object-slot.ts";
import { isNativeFed } from "./native-fed.ts";
import { nativeReadingBody } from "./to-native.ts";

/** Once the bridge buffers this many bytes ahead of the native consumer, our pipe waits for it. */
export const BATCH_BYTES: number = 64 * 1024;

/**
 * A native stream with the bytes of `stream` (see the kit's `BodyBridge`): chunks that are not a
 * BufferSource end it with `bodyBytes`' `TypeError` (and cancel `stream` with it); an error of `stream`
 * errors it with the same object; cancelling it cancels `stream` with the same reason (see
 * `pipeToBridge`), and its cancel fails as ours does. The chunks it
 * hands out are the bytes of ours, in order, joined when more than one was buffered.
 */
export function batchedBody(stream: ReadableStream<unknown>, context: string): globalThis.ReadableStream<Uint8Array> {
  return bridgeBody(stream, context, true);
}

/**
 * BODY-BATCH-PARTS: {@link batchedBody} whose pull enqueues the buffered chunks one by one instead of joining
 * them into one, for a runtime whose consumer takes chunks already queued without waiting (Deno's server and
 * fetch drain a body's queue by synchronous reads, one op per chunk): a join costs a new buffer of up to
 * 64 KiB and a copy of every byte, which measured more than those reads (bench/README.md, `hono-stream`,
 * `end-serve`). Unobservable: the consumer gets the same bytes in the same order; the native stream holds
 * what the joined chunk would have held, and is pulled again only once they have all been read.
 */
export function batchedBodyParts(
  stream: ReadableStream<unknown>,
  context: string,
): globalThis.ReadableStream<Uint8Array> {
  return isNativeFed(stream) ? nativeFedBody(stream, context) : bridgeBody(stream, context, false);
}

/**
 * BODY-NATIVE-FED: the body of a readable side a native stream feeds (native-fed.ts) reads it in batches per
 * native pull (`nativeReadingBody`, TO-NATIVE-BATCH's reads, ours locked at the first pull), with no pipe into
 * a buffer: its chunks come one per native read, so the bridge's pipe and buffer only add to each (Deno's served
 * echo, bench/README.md). A whole-body consumer can claim it as a bridge until its first pull.
 */
function nativeFedBody(stream: ReadableStream<unknown>, context: string): globalThis.ReadableStream<Uint8Array> {
  let started = false;
  let claimed = false;
  const native = nativeReadingBody(stream, context, () => {
    started = true;
    // Nothing can claim it any more (as the bridge's first pull: the native stream lets go of our graph).
    bridges.delete(native);
    return !claimed;
  });
  bridges.set(native, () => {
    if (started || claimed || native.locked || usedByScript(stream)) return undefined;
    claimed = true;
    bridges.delete(native);
    return { stream, context };
  });
  return native;
}

function bridgeBody(
  stream: ReadableStream<unknown>,
  context: string,
  join: boolean,
): globalThis.ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Claimed by a whole-body consumer (see claimBatchedBody), or cancelled: what a take has not enqueued stays out. */
  let claimed = false;
  let parts: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  let pipe: BridgePipe | undefined;
  /** A native pull found nothing: the next chunk (or the end) is handed over as it arrives. */
  let waiting = false;
  /** Our pipe's pending write, resolved when the native side takes the buffer. */
  let room: (() => void) | undefined;

  /** Lets our pipe's write that waits for room end. */
  const release = (): void => {
    const resume = room;
    room = undefined;
    resume?.();
  };
  const take = (): void => {
    const taken = parts;
    const bytes = size;
    parts = [];
    size = 0;
    if (taken.length === 1) controller.enqueue(taken[0]!);
    else if (join) controller.enqueue(joinBytes(taken, bytes));
    // The consumer may cancel from inside an enqueue (Deno's server reads each chunk synchronously).
    else for (let i = 0; i < taken.length && !claimed; i++) controller.enqueue(taken[i]!);
    release();
  };
  // BODY-ANSWER-NOW: a waiting pull is answered from inside the pipe's write or close, so a chunk costs no
  // promise of ours and no job. Unobservable: the pull returned undefined and the stream holds nothing, so the
  // enqueue is the one the answer in a later job would have made, with the same chunk, in the same order.
  const wake = (): void => {
    if (!waiting) return;
    waiting = false;
    answer();
  };
  const answer = (): void => {
    if (size > 0) take();
    else if (ended) controller.close();
  };

  const start = (): void => {
    pipe = pipeToBridge(stream, context, {
      write(bytes): Promise<void> | undefined {
        if (bytes.byteLength === 0) return undefined;
        parts.push(bytes);
        size += bytes.byteLength;
        wake();
        // Unobservable: the pipe is the only writer of this sink; the promise is its backpressure.
        if (size >= BATCH_BYTES) return new Promise<void>((resolve) => (room = resolve));
        return undefined;
      },
      close() {
        ended = true;
        wake();
      },
      keepsLock: true,
    });
    // The runtime's reader of a body never lets go of it: ours stays locked once the pipe is over, as a native
    // body read to its end, failed or cancelled stays locked (a batch loop has locked it again already, keepsLock;
    // this covers a pipe's end and a cancel).
    const keepLocked = (): void => {
      if (!stream.locked) stream.getReader();
    };
    pipe.done.then(keepLocked, (error: unknown) => {
      keepLocked();
      parts = [];
      size = 0;
      waiting = false;
      try {
        controller.error(error);
      } catch {
        // already cancelled by its consumer
      }
    });
  };

  const native = new Native.ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull(): Promise<void> | undefined {
        if (claimed) {
          controller.close();
          return undefined;
        }
        if (pipe === undefined) {
          // Nothing can claim it any more: the native stream lets go of our stream's graph (a native stream that
          // outlives a minor GC would keep all of it alive until a full one).
          bridges.delete(native);
          start();
        }
        if (size > 0 || ended) {
          answer();
          return undefined;
        }
        waiting = true;
        return undefined;
      },
      cancel(reason): Promise<void> {
        if (pipe === undefined) {
          claimed = true;
          bridges.delete(native);
          return stream.cancel(reason);
        }
        parts = [];
        size = 0;
        claimed = true;
        waiting = false;
        const done = pipe.cancel(reason);
        // The pipe finishes a write in flight before it lets go of ours: let a write waiting for room end.
        release();
        return done;
      },
    },
    { highWaterMark: 0 },
  );
  bridges.set(native, () => {
    if (pipe !== undefined || claimed || native.locked || usedByScript(stream)) return undefined;
    claimed = true;
    bridges.delete(native);
    return { stream, context };
  });
  return native;
}

/** Our stream behind a bridge, with the context of its byte checks. */
export interface ClaimedBody {
  /** Our stream, still unlocked: the whole-body consumer reads it. */
  readonly stream: ReadableStream<unknown>;
  /** The API named in a bad chunk's `TypeError` (`"Response"`, `"Request"`, `"fetch"`). */
  readonly context: string;
}

const bridges = new ObjectSlot<() => ClaimedBody | undefined>("fusestreams body bridge");

/**
 * Whether JavaScript holds or has read our stream behind a bridge (it reads ours itself when a Response answers ours
 * as its body: made-bodies.ts): the bridge is then no whole-body consumer's to claim.
 */
function usedByScript(stream: ReadableStream<unknown>): boolean {
  return stream.locked || readableStreamState(stream)?.disturbed === true;
}

/** Whether `native` is a bridge of {@link batchedBody} or {@link batchedBodyParts} that nothing has pulled or claimed. */
export function isUnclaimedBridge(native: unknown): boolean {
  return typeof native === "object" && native !== null && bridges.has(native);
}

/**
 * When `native` is a bridge made by {@link batchedBody} that nothing has pulled, cancelled or locked yet: claims it for a
 * whole-body consumer, which then reads our stream itself; the bridge's first pull then closes it, so the
 * consumer still disturbs and locks it as the runtime's consumer would. Otherwise undefined.
 */
export function claimBatchedBody(native: unknown): ClaimedBody | undefined {
  if (typeof native !== "object" || native === null) return undefined;
  return bridges.get(native)?.();
}
