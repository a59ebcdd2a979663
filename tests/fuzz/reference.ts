/**
 * The reference implementation the fuzzer compares against where a runtime's native streams are known to
 * deviate from the standard: web-streams-polyfill (an exact-pinned devDependency), which follows the
 * WHATWG reference implementation step by step, including the Web IDL "promise resolved with" jobs.
 *
 * It has known deviations of its own, found by this fuzzer and listed in REFERENCE_DEVIATIONS with the
 * reason; for those programs the comparison with the reference is left out (the native comparison, where it
 * applies, still runs). Every entry is also described in tests/fuzz/README.md.
 * @module
 */
import * as polyfill from "web-streams-polyfill";
import type { Normalization } from "./compare.ts";
import { type Impl, implOf } from "./interpret.ts";
import type { Program } from "./program.ts";
import { specValues } from "./spec-iterator.ts";

/**
 * web-streams-polyfill's classes. Its own async iterator resolves each chunk through an extra queueMicrotask
 * (seeds 726, 1913): `for await` iterates with the standards' steps over its reader instead.
 */
export const REFERENCE: Impl = implOf("reference", polyfill, specValues);

/** A known deviation of the reference from the standard: the programs it affects and what is left out. */
export interface Deviation {
  applies: (p: Program) => boolean;
  normalization: Normalization;
  what: string;
}

/**
 * Known deviations of web-streams-polyfill 4.3.0 from the standard that still affect a comparison (see
 * tests/fuzz/README.md). Its async iterator's extra job is not one of them: `values` above iterates with
 * spec-iterator.ts. Its crashes (an exception thrown from one of its own jobs) are handled in fuzz.ts.
 */
export const REFERENCE_DEVIATIONS: readonly Deviation[] = [];

/** The normalization for a program against the reference, and the deviations it accounts for. */
export function referenceDeviation(p: Program): { normalization: Normalization; what: string[] } {
  const normalization: Normalization = {};
  const what: string[] = [];
  for (const d of REFERENCE_DEVIATIONS) {
    if (!d.applies(p)) continue;
    Object.assign(normalization, d.normalization);
    what.push(d.what);
  }
  return { normalization, what };
}
