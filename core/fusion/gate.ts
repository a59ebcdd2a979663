/**
 * The gate (FP-FUSE): a TransformStream seen from its writable side by a fused pipe. A direct write into the
 * writable side calls the transform inside the producer's `enqueue()`; while the readable side has
 * backpressure the spec's write algorithm would wait on [[backpressureChangePromise]], so the pipe holds the
 * chunk until the gate unblocks (`hooks.ts`). FP-TS-IDENTITY is the gate's shortcut for a transform without
 * `transform()`.
 * @module
 */
import type { WritableStreamInternal, WriteRequest } from "../writable/stream-internal.ts";

/** A sink that can hold off a direct write for a while: a TransformStream's writable side. */
export interface DirectWriteGate {
  /** The TransformStream's [[backpressure]] (undefined before it is first set). */
  backpressure: boolean | undefined;
  /** The unblock hook (hooks.ts): armed by a pipe holding a chunk, run when backpressure clears. */
  onUnblock: (() => void) | undefined;
  /**
   * FP-TS-IDENTITY: a direct write (the writable side idle, no backpressure, no size()) into a TransformStream
   * without a transform() whose readable side has a read request waiting, as one step; returns false (having
   * done nothing) when it does not apply.
   */
  writeIdentity(chunk: unknown, request: WriteRequest): boolean;
}

/** Makes `gate` the gate of the writable side `writable` (InitializeTransformStream). */
export function SetDirectWriteGate(writable: WritableStreamInternal, gate: DirectWriteGate): void {
  writable.gate = gate;
}

/** Whether `writable` is a TransformStream's writable side (a fused pipe writes into its transform). */
export function HasDirectWriteGate(writable: WritableStreamInternal): boolean {
  return writable.gate !== undefined;
}
