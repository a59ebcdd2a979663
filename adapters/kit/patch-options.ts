/**
 * The options of `patchGlobalWebStreams(options)` (the contract's `PatchOptions`), checked and given their
 * defaults before the patch changes anything.
 * @module
 */
import { describeValue } from "../../core/internal.ts";
import type { PatchOptions } from "./contract.ts";

/** {@link PatchOptions} with every member set. */
export interface ResolvedPatchOptions {
  readonly compression: "runtime" | "batched";
}

const COMPRESSION_MODES: readonly string[] = ["runtime", "batched"];

/**
 * `options` with their defaults, or the `TypeError` (its message starting with `label`) for what is not
 * {@link PatchOptions}: not an object, or a `compression` other than `"runtime"` and `"batched"`. Members it does
 * not know are ignored, as WebIDL dictionaries ignore them.
 */
export function resolvePatchOptions(label: string, options: unknown): ResolvedPatchOptions {
  if (options === undefined || options === null) return { compression: "runtime" };
  if (typeof options !== "object" && typeof options !== "function") {
    throw new TypeError(`${label}: options must be an object, not ${describe(options)}; nothing was changed`);
  }
  const compression = (options as PatchOptions).compression;
  if (compression === undefined) return { compression: "runtime" };
  if (typeof compression !== "string" || COMPRESSION_MODES.indexOf(compression) === -1) {
    throw new TypeError(
      `${label}: options.compression must be "runtime" or "batched", not ${describe(compression)}; nothing was changed`,
    );
  }
  return { compression };
}

/** Whether two resolved options ask for the same patch. */
export function samePatchOptions(a: ResolvedPatchOptions, b: ResolvedPatchOptions): boolean {
  return a.compression === b.compression;
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : describeValue(value);
}
