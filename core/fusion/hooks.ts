/**
 * The moments a fused pipe (core/readable/pipe-to.ts) waits for, each as a named hook: the pipe arms it, the
 * module where the moment happens runs it, and only this module touches the hook slots.
 *
 * - writer ready (FP-PIPE-READY): the pipe's writer's `ready` settles (the pipe parks on it instead of a
 *   promise reaction; `writable/stream-internal.ts` runs it where it resolves or rejects `ready`);
 * - write done (FP-FUSE, after DIRECT_WAIT): the next queued or in-flight write of the destination completes;
 * - gate unblocked (FP-FUSE, after DIRECT_GATED): a destination TransformStream's readable side loses its
 *   backpressure (`transform/transform-stream.ts` runs it).
 *
 * Each hook runs at most once per arming and is disarmed before it runs. The slots are fields of the stream
 * objects (one load per check on a per-chunk path, no object of their own), declared where the objects are.
 * @module
 */
import type { WritableStreamInternal, WriterInternal } from "../writable/stream-internal.ts";
import type { DirectWriteGate } from "./gate.ts";

/** Arms the writer-ready hook of `writer` (FP-PIPE-READY). */
export function whenWriterReady(writer: WriterInternal, hook: () => void): void {
  writer.onReady = hook;
}

/** Disarms the writer-ready hook of `writer` if it is `hook`. */
export function cancelWriterReady(writer: WriterInternal, hook: (() => void) | undefined): void {
  if (writer.onReady === hook) writer.onReady = undefined;
}

/** Runs (once) the writer-ready hook of `writer`, if armed: its `ready` promise just settled. */
export function WriterReadySettled(writer: WriterInternal): void {
  const hook = writer.onReady;
  if (hook !== undefined) {
    writer.onReady = undefined;
    hook();
  }
}

/** Arms the write-done hook of `stream` (FP-FUSE, after DIRECT_WAIT). */
export function whenWriteDone(stream: WritableStreamInternal, hook: () => void): void {
  stream.onWriteDone = hook;
}

/** Runs (once) the write-done hook of `stream`, if armed: a queued or in-flight write just completed. */
export function WriteDoneSettled(stream: WritableStreamInternal): void {
  const hook = stream.onWriteDone;
  if (hook !== undefined) {
    stream.onWriteDone = undefined;
    hook(); // FP-FUSE
  }
}

/** Arms the unblock hook of the transform whose writable side is `dest` (FP-FUSE, after DIRECT_GATED). */
export function whenGateUnblocks(dest: WritableStreamInternal, hook: () => void): void {
  dest.gate!.onUnblock = hook;
}

/** Runs (once) the unblock hook of `gate`, if armed: its readable side's backpressure just cleared. */
export function GateUnblocked(gate: DirectWriteGate): void {
  const hook = gate.onUnblock;
  if (hook !== undefined) {
    gate.onUnblock = undefined;
    hook();
  }
}

/**
 * Disarms whichever of `stream`'s hooks (gate unblocked or write done) is `hook`; returns whether one was:
 * a pipe that stops takes back the chunks it held for them.
 */
export function cancelHeldWrite(stream: WritableStreamInternal, hook: (() => void) | undefined): boolean {
  const gate = stream.gate;
  if (gate === undefined || hook === undefined) return false;
  if (gate.onUnblock === hook) gate.onUnblock = undefined;
  else if (stream.onWriteDone === hook) stream.onWriteDone = undefined;
  else return false;
  return true;
}
