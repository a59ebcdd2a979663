/**
 * The pipe behind a body bridge (BODY-BATCH, BUN-DIRECT): one of our streams fed into the bridge's byte
 * sink, with a `cancel()` for the native side that ends the pipe and cancels our stream with exactly the
 * native cancel's reason (an `AbortSignal` would turn a missing reason into an `AbortError`), and hands back
 * our cancel's own outcome (its failure, by identity).
 *
 * The readable side of a TransformStream is piped (fused: the chain before it then runs by direct calls into
 * the sink); any other stream of ours is read in batches (BRIDGE-BATCH, `acquireBatchReader`: the chunks
 * queued in one step, a synchronous pull() chain's chunks in one wake), which measured 1.08-1.11x the pipe
 * on Bun's `text()` (`rt-response-text`) and 0.99-1.10x on the routes (`rt-serve-0` on Deno and Bun,
 * `route-0` in workerd). A batch read of a transform's readable side gets one chunk per wake, so there the
 * fused pipe is the batch machinery's cheaper form. BRIDGE-NATIVE-FED: a transform's readable side that a pipe
 * from a runtime's own stream feeds (native-fed.ts) is read in batches too: its chunks come one per native read, so
 * the fused pipe has no chain of ours to run by direct calls, and its setup (a WritableStream and a second pipe per
 * body) is what the batch loop saves (Bun's served echo, bench/README.md).
 * @module
 */
import {
  acquireBatchReader,
  type Batch,
  BATCH_DONE,
  type BatchAnswer,
  type BatchReader,
  isBatchPromise,
  isTransformReadable,
  type ReadableStream,
  type ReadableStreamLike,
  type ReadRequest,
  WritableStream,
  type WritableStreamDefaultController,
} from "../../core/internal.ts";
import { isNativeFed } from "./native-fed.ts";
import { noop } from "./natives.ts";
import { bodyBytes } from "./to-native.ts";

/** What a bridge does with our stream's chunks, each converted first (`T`: the bytes of a chunk, by default). */
export interface BridgeSink<T = Uint8Array> {
  /** Takes one converted chunk; a promise keeps the pipe waiting (backpressure). */
  write(chunk: T): Promise<void> | undefined;
  /** Our stream closed. */
  close(): void;
  /**
   * The runtime's consumer never lets go of the body it reads (a server's response, an upload): when our stream
   * closes or errors, the batch loop locks it again at once with a reader of its own, as a native body read to its
   * end stays locked (BRIDGE-KEEP-LOCK). Without it, ours is left released then.
   */
  readonly keepsLock?: boolean;
}

/** A running {@link pipeToBridge}. */
export interface BridgePipe {
  /**
   * Fulfills when our stream closed or the pipe was cancelled; rejects with our stream's error, or with
   * the `TypeError` of a chunk that is not a BufferSource (our stream is then cancelled with it), or with
   * what the sink threw.
   */
  readonly done: Promise<void>;
  /**
   * The native side's cancel: ends the pipe (a write in flight is finished first, so the caller lets a
   * write that waits for room end) and cancels our stream with `reason`, itself. Returns our cancel's
   * promise (fulfilled also when our stream had already ended).
   */
  cancel(reason: unknown): Promise<void>;
}

/** The error the pipe's sink is put in when the native side cancels (never seen outside this module). */
const kCancelled: unique symbol = Symbol("cancelled by the native side");

/** Checks and converts one chunk for a sink (throws the error that ends the bridge for a bad chunk). */
export type ChunkConversion<T> = (chunk: unknown, context: string) => T;

/**
 * Feeds `stream` into `sink`, each chunk checked and converted by `convert` (default: `bodyBytes`, the bytes
 * of a BufferSource, else the `TypeError` naming `context`, the API): a TransformStream's readable side
 * through a fused pipe (unless a native stream feeds it: BRIDGE-NATIVE-FED), any other stream in batches.
 */
export function pipeToBridge(stream: ReadableStream<unknown>, context: string, sink: BridgeSink): BridgePipe;
export function pipeToBridge<T>(
  stream: ReadableStream<unknown>,
  context: string,
  sink: BridgeSink<T>,
  convert: ChunkConversion<T>,
): BridgePipe;
export function pipeToBridge<T>(
  stream: ReadableStream<unknown>,
  context: string,
  sink: BridgeSink<T>,
  convert: ChunkConversion<T> = bodyBytes as unknown as ChunkConversion<T>,
): BridgePipe {
  return isTransformReadable(stream) && !isNativeFed(stream)
    ? pipedBridge(stream, context, sink, convert)
    : batchedBridge(stream, context, sink, convert);
}

/**
 * The pipe: `stream` piped into `sink`. It never cancels `stream` itself (`preventCancel`): the bridge
 * does, with the native reason or the failing chunk's error, once the pipe has let go of it.
 */
function pipedBridge<T>(
  stream: ReadableStream<unknown>,
  context: string,
  sink: BridgeSink<T>,
  convert: ChunkConversion<T>,
): BridgePipe {
  let controller!: WritableStreamDefaultController;
  /** What the sink threw (a chunk that is not a BufferSource, or the native write's error). */
  let sinkError: { error: unknown } | undefined;
  /** Set by the native side's cancel: its reason, then our cancel's promise. */
  let cancelled: { reason: unknown; done?: Promise<void> } | undefined;
  const writable = new WritableStream<unknown>({
    start(c) {
      controller = c;
    },
    write(chunk): Promise<void> | undefined {
      let written: Promise<void> | undefined;
      try {
        written = sink.write(convert(chunk, context));
      } catch (error) {
        sinkError = { error };
        throw error;
      }
      return written?.then(undefined, (error: unknown) => {
        sinkError = { error };
        throw error;
      });
    },
    close() {
      sink.close();
    },
  });
  const done = stream.pipeTo(writable, { preventCancel: true }).catch((error: unknown) => {
    if (cancelled !== undefined) {
      cancelled.done = stream.cancel(cancelled.reason);
      return;
    }
    // A failing chunk cancels ours with its error, as a pipe without preventCancel would.
    if (sinkError !== undefined) stream.cancel(error = sinkError.error).catch(noop);
    throw error;
  });
  return {
    done,
    cancel(reason) {
      if (cancelled === undefined) {
        cancelled = { reason };
        controller.error(kCancelled);
      }
      return done.then(() => cancelled!.done, noop);
    },
  };
}

/** How many bytes a waiting batch read collects from a synchronous pull() chain before it answers. */
const HOLD_BYTES = 64 * 1024;

/**
 * BRIDGE-BATCH: `stream` read in batches into `sink`, one chunk after the other; a write that returns a
 * promise keeps the rest of its batch (at most `stream`'s queue and `HOLD_BYTES` plus a chunk of a
 * synchronous pull() chain) until it settles. BRIDGE-ONE: when a wait gave one chunk (a source that produces
 * one per wake), the next waits are plain reads (BRIDGE-SYNC), until chunks are found queued. Ends as the pipe
 * does: `stream`'s close closes the sink and releases `stream` (locks it again at once for a sink that `keepsLock`:
 * BRIDGE-KEEP-LOCK); its error rejects `done` with the same object;
 * a bad chunk or a failing sink cancels `stream` with that error and rejects `done` with it; the native side's
 * cancel cancels `stream` at once.
 */
function batchedBridge<T>(
  stream: ReadableStream<unknown>,
  context: string,
  sink: BridgeSink<T>,
  convert: ChunkConversion<T>,
): BridgePipe {
  /** Set by the native side's cancel: our cancel's promise. */
  let cancelled: Promise<void> | undefined;
  let reader: BatchReader<unknown> | undefined;
  /** The loop has ended and let go of `stream` (closed, errored, or cancelled with a bad chunk's error). */
  let finished = false;
  let held = 0;
  const answer: BatchAnswer<Batch<unknown>> = {
    chunks(batch) {
      held = 0;
      return batch;
    },
    end: () => BATCH_DONE,
    error() {},
    hold(chunk) {
      const length = (chunk as { byteLength?: unknown } | null)?.byteLength;
      return (held += typeof length === "number" ? length : 1) < HOLD_BYTES;
    },
  };
  /**
   * BRIDGE-SYNC: while chunks come one per wake, each is written to the sink inside the `enqueue()` that delivers
   * it, by a read request of the bridge's own, armed again after each write. The loop takes over (`pushed()`
   * settles) at ours' close (BATCH_DONE) or error (a rejection), at a write that returns a promise, or that throws.
   */
  type PushEnd = typeof BATCH_DONE | { readonly wait: Promise<void> } | { readonly failed: { error: unknown } };
  let pushEnd: ((end: PushEnd) => void) | undefined;
  let pushFail: ((error: unknown) => void) | undefined;
  const endPush = (end: PushEnd): void => {
    const settle = pushEnd!;
    pushEnd = pushFail = undefined;
    settle(end);
  };
  const pushRequest: ReadRequest = {
    chunkSteps(chunk) {
      let written: Promise<void> | undefined;
      try {
        written = sink.write(convert(chunk, context));
      } catch (error) {
        return endPush({ failed: { error } });
      }
      if (written !== undefined) endPush({ wait: written });
      // The sink's write can cancel the bridge (a consumer that gives up from inside a native enqueue()).
      else if (cancelled !== undefined) endPush(BATCH_DONE);
      else reader!.readPush!(pushRequest);
    },
    closeSteps() {
      endPush(BATCH_DONE);
    },
    errorSteps(error) {
      const fail = pushFail!;
      pushEnd = pushFail = undefined;
      fail(error);
    },
  };
  const pushed = (): Promise<PushEnd> => {
    const end = new Promise<PushEnd>((resolve, reject) => {
      pushEnd = resolve;
      pushFail = reject;
    });
    reader!.readPush!(pushRequest);
    return end;
  };
  const run = async (): Promise<void> => {
    const batches = (reader = acquireBatchReader(stream as unknown as ReadableStreamLike<unknown>, context));
    /** BRIDGE-ONE: the last wait gave one chunk; wait with a plain read until chunks come faster. */
    let oneByOne = false;
    try {
      for (;;) {
        let next: Batch<unknown> | Promise<Batch<unknown>>;
        if (!oneByOne) {
          next = batches.readAs(answer);
          if (isBatchPromise(next)) {
            next = await next;
            // (ours only: another implementation's queue cannot be seen, so there would be no way back)
            oneByOne = batches.ours && next !== BATCH_DONE && next.length === 1;
          }
        } else {
          const queued = batches.takeQueued();
          if (queued !== undefined) {
            next = queued;
            oneByOne = false;
          } else {
            // BRIDGE-SYNC (oneByOne is set for ours only, whose reader has readPush)
            const end = await pushed();
            if (end === BATCH_DONE) next = BATCH_DONE;
            else {
              try {
                if ("failed" in end) throw end.failed.error;
                await end.wait;
              } catch (error) {
                if (cancelled !== undefined) return;
                batches.cancel(error).then(undefined, noop);
                throw error;
              }
              if (cancelled !== undefined) return;
              continue;
            }
          }
        }
        if (cancelled !== undefined) return;
        if (next === BATCH_DONE) {
          sink.close();
          return;
        }
        for (let i = 0; i < next.length; i++) {
          try {
            const written = sink.write(convert(next[i], context));
            if (written !== undefined) await written;
          } catch (error) {
            if (cancelled !== undefined) return;
            batches.cancel(error).then(undefined, noop);
            throw error;
          }
          if (cancelled !== undefined) return;
        }
      }
    } finally {
      finished = true;
      if (cancelled === undefined) {
        batches.release();
        // BRIDGE-KEEP-LOCK: locked again in the same job, so nothing sees ours unlocked after its end.
        if (sink.keepsLock === true && !stream.locked) stream.getReader();
      }
    }
  };
  const done = run();
  return {
    done,
    cancel(reason) {
      if (cancelled !== undefined) return cancelled;
      // Ended already (closed, errored, or a bad chunk cancelled it): nothing to cancel.
      if (reader === undefined || finished) return (cancelled = done.then(noop, noop));
      // A batch read waiting on ours settles (done) with the cancel; a write in flight is left to finish.
      return (cancelled = reader.cancel(reason));
    },
  };
}
