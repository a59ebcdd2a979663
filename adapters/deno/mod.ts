/**
 * Deno adapter for fusestreams.
 *
 * Re-exports the complete public API of `fusestreams`. Deno-specific extras will
 * be added here.
 *
 * @module
 */
export * from "../../mod.ts";
