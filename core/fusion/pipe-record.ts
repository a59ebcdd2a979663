/**
 * What a writable stream knows of the pipe that writes into it: the last pipe recorded on it, which the
 * writable asks whether it is still live (a transform's synchronous completion of a queued chunk is then seen
 * by nobody but that pipe, FP-FUSE), and which `inspectPipeChain()` walks (core/fusion/inspect.ts).
 * @module
 */
import type { WritableStreamInternal } from "../writable/stream-internal.ts";

/** The part of a pipe (core/readable/pipe-to.ts) recorded on its destination. */
export interface PipeRecord {
  /** False once the pipe has finalized. */
  readonly active: boolean;
}

/** Records `pipe` as the pipe writing into `dest`. */
export function RecordPipe(dest: WritableStreamInternal, pipe: PipeRecord): void {
  dest.pipe = pipe;
}

/** The last pipe recorded on `dest`, live or not. */
export function PipeRecordOf(dest: WritableStreamInternal): PipeRecord | undefined {
  return dest.pipe;
}

/**
 * Whether `dest` is a TransformStream's writable side that a live pipe of ours writes into: the pipe owns the
 * writer, so a queued chunk whose transform completed synchronously is seen complete by nobody but the pipe,
 * and completes at once (FP-FUSE).
 */
export function IsFusedTransformWrite(dest: WritableStreamInternal): boolean {
  return dest.gate !== undefined && dest.pipe?.active === true;
}
