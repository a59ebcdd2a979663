/**
 * The readable sides of our TransformStreams that a pipe from a runtime's own stream feeds (BRIDGE-NATIVE-FED):
 * `native.pipeThrough(ours)`, `body.pipeThrough(ours)` of a body shell (taken by BODY-PIPE or not), and any
 * `pipeThrough()` of such a readable side. Their chunks come one per native read, so a body bridge gains nothing
 * from fusing with the chain before it, and reads them instead (bridge-pipe.ts). Kept in an {@link ObjectSlot}, as
 * the kit's other per-body state (SLOT-NOT-WEAKMAP: one is marked per request).
 * @module
 */
import { ObjectSlot } from "./object-slot.ts";

const fed = new ObjectSlot<true>("fusestreams fed by a native stream");

/** Records that `readable`, the readable side a `pipeThrough()` returned, is fed by a pipe from a native stream. */
export function markNativeFed(readable: unknown): void {
  if (typeof readable === "object" && readable !== null) fed.set(readable, true);
}

/** Whether {@link markNativeFed} recorded `stream`. */
export function isNativeFed(stream: unknown): boolean {
  return typeof stream === "object" && stream !== null && fed.has(stream);
}
