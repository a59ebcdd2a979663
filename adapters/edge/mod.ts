/**
 * Edge adapter for fusestreams (Cloudflare Workers/workerd, Vercel Edge,
 * browsers and any other runtime with only web-standard globals).
 *
 * Re-exports the complete public API of `fusestreams` and nothing else: this
 * entry point is core-only and must never use runtime-specific APIs.
 *
 * @module
 */
export * from "../../mod.ts";
