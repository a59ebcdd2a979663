/**
 * Words for the runtime the code runs on, from `navigator.userAgent` (web-standard: `Node.js/26`,
 * `Deno/2.9.6`, `Bun/1.4.5`, `Cloudflare-Workers`, a browser's string), for the adapters' runtime checks.
 * Each adapter tells whether it runs on its own runtime itself; this only names the one found instead.
 * @module
 */

/** The runtime named by `navigator.userAgent`, or `"an unknown runtime"`. */
export function describeRuntime(): string {
  const ua = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof ua === "string" && ua !== "" ? ua : "an unknown runtime";
}

/**
 * The sentence an adapter's runtime check reports when it does not run on its runtime (`here` false),
 * else undefined.
 */
export function runtimeMismatch(adapter: string, here: boolean): string | undefined {
  if (here) return undefined;
  return `this adapter is for ${adapter}, but the code runs on ${describeRuntime()}; use the adapter for this runtime (fusestreams/node, /deno, /bun or /edge; in a browser there is no patch), or hand streams to native APIs with toNativeReadableStream()`;
}
