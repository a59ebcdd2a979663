/**
 * The pipe behind a body bridge (BODY-BATCH, BUN-DIRECT): one of our streams piped (fused) into the
 * bridge's byte sink, with a `cancel()` for the native side that ends the pipe and cancels our stream with
 * exactly the native cancel's reason (an `AbortSignal` would turn a missing reason into an `AbortError`),
 * and hands back our cancel's own outcome (its failure, by identity).
 * @module
 */
import { type ReadableStream, type WritableStreamDefaultController, WritableStream } from "../../mod.ts";
import { noop } from "./natives.ts";
import { bodyBytes } from "./to-native.ts";

/** What a bridge does with our stream's bytes. */
export interface BridgeSink {
  /** Takes the bytes of one chunk; a promise keeps the pipe waiting (backpressure). */
  write(bytes: Uint8Array): Promise<void> | undefined;
  /** Our stream closed. */
  close(): void;
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

/**
 * Pipes `stream` into `sink`, each chunk checked and converted by `bodyBytes` (`context` names the API in
 * its `TypeError`). The pipe never cancels `stream` itself (`preventCancel`): the bridge does, with the
 * native reason or the failing chunk's error, once the pipe has let go of it.
 */
export function pipeToBridge(stream: ReadableStream<unknown>, context: string, sink: BridgeSink): BridgePipe {
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
      try {
        return sink.write(bodyBytes(chunk, context));
      } catch (error) {
        sinkError = { error };
        throw error;
      }
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
    if (sinkError !== undefined) stream.cancel((error = sinkError.error)).catch(noop);
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
