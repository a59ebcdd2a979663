/**
 * Node.js adapter for fusestreams.
 *
 * Re-exports the complete public API of `fusestreams`. Node.js-specific extras
 * (for example the opt-in global patch and interop with `node:stream`) will be
 * added here; this entry point is allowed to import `node:` built-in modules.
 *
 * @module
 */
export * from "../../mod.ts";
