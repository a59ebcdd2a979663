/**
 * Whether the code runs on an edge runtime the edge adapter's global patch supports, from web-standard
 * globals only: workerd (Cloudflare Workers) sets `navigator.userAgent` to `"Cloudflare-Workers"`;
 * edge-light (Vercel's Edge Runtime, and its local `edge-runtime` package) defines the global
 * `EdgeRuntime` (a string). Anything else (a browser, Node.js, Deno, Bun) is not one of them.
 * @module
 */

/** True on workerd and edge-light, false on any other runtime (browsers included). */
export function onEdgeRuntime(): boolean {
  const g = globalThis as { EdgeRuntime?: unknown; navigator?: { userAgent?: unknown } };
  return typeof g.EdgeRuntime === "string" || g.navigator?.userAgent === "Cloudflare-Workers";
}
