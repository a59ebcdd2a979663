/**
 * The transform behind a readable side that a consumer may take whole (FP-ENCODE-INTO, FP-CODEC-INTO): one
 * that nothing has read or locked and that holds no chunk, so every byte it will give is still to be made.
 * @module
 */
import { readableStreamInternalOrUndefined } from "../readable/brand.ts";
import { READABLE } from "../readable/stream-internal.ts";
import type { DefaultControllerInternal } from "../readable/default-controller.ts";
import type { TransformStreamHandle } from "./transform-stream.ts";

/**
 * The TransformStream whose readable side `readable` is, when `transformFn` is its transform (from its internal
 * slot: nothing of the user's is asked) and the readable side is unlocked, undisturbed, readable and empty;
 * otherwise undefined.
 */
export function untouchedTransformReadable(readable: unknown, transformFn: unknown): TransformStreamHandle | undefined {
  const s = readableStreamInternalOrUndefined(readable);
  const transform = s?.transform as TransformStreamHandle | undefined;
  if (transform === undefined || transform.transformFn !== transformFn) return undefined;
  if (s!.reader !== undefined || s!.disturbed || s!.state !== READABLE) return undefined;
  if (((s as DefaultControllerInternal).queue?.size ?? 0) !== 0) return undefined;
  return transform;
}
