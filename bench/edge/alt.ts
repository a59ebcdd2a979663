/**
 * The edge entry of the workerd bench's `alt` implementation: bench/edge/run.ts resolves this module to
 * another checkout's `adapters/edge/mod.ts` when given `--alt=DIR` (an A/B of two versions); otherwise it
 * is this checkout's edge entry again.
 * @module
 */
export * from "../../adapters/edge/mod.ts";
